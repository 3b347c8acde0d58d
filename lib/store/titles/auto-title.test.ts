import { afterEach, describe, expect, it } from 'vitest';
import { PreconditionError } from '../errors.js';
import { openTempStore } from '../testing/temp-store.js';
import type { SessionStore } from '../session-store.js';
import type { TitleModel, TitleRequest } from './title-model.js';

/** A model whose answers the test releases by hand. */
class ControlledModel implements TitleModel {
  readonly requests: TitleRequest[] = [];
  private waiting: ((title: string) => void)[] = [];
  complete(request: TitleRequest): Promise<string> {
    this.requests.push(request);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  answer(title: string): void {
    this.waiting.shift()?.(title);
  }
  get pending(): number {
    return this.waiting.length;
  }
}

async function turn(store: SessionStore, id: string, user: string, reply = 'ok'): Promise<void> {
  await store.appendMessage(id, { role: 'user', content: user });
  await store.appendMessage(id, { role: 'assistant', content: reply });
  await store.finalizeTurn(id);
}

describe('automatic titles', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  async function fresh(model: TitleModel | null) {
    const temp = await openTempStore({ titleModel: model });
    cleanups.push(async () => {
      if (model instanceof ControlledModel) while (model.pending > 0) model.answer('');
      await temp.cleanup();
    });
    await temp.store.createSession({ id: 's' });
    return temp;
  }

  it('without a model: the preview until the first turn ends, then the truncated title stays', async () => {
    const { store } = await fresh(null);
    await store.appendMessage('s', { role: 'user', content: '[attachment: x.png]\nPlan a trip to Kyoto in spring with a friend who likes temples\nmore' });
    expect((await store.getSession('s')).title).toBe('');
    await store.appendMessage('s', { role: 'assistant', content: 'Sure' });
    await store.finalizeTurn('s');
    const row = await store.getSession('s');
    expect(row.title).toBe('Plan a trip to Kyoto in spring with a friend who l…');
    await turn(store, 's', 'second');
    expect((await store.getSession('s')).title).toBe(row.title);
  });

  it('phase 2 replaces the truncated title in the background, with the request of FORMAT.md', async () => {
    const model = new ControlledModel();
    const { store } = await fresh(model);
    await turn(store, 's', 'x'.repeat(600), 'y'.repeat(600));
    expect((await store.getSession('s')).title).toBe(`${'x'.repeat(50)}…`); // finalize did not wait for the model
    expect(model.requests[0]).toEqual({
      system: 'Generate a short, descriptive title (3-7 words) for this conversation. Return ONLY the title, no quotes, no prefix.',
      messages: [
        { role: 'user', content: 'x'.repeat(500) },
        { role: 'assistant', content: 'y'.repeat(500) },
      ],
      maxTokens: 50,
      temperature: 0.3,
    });
    model.answer('Title: "Long Letters"');
    await store.idle();
    expect((await store.getSession('s')).title).toBe('Long Letters');
  });

  it('a rename during the model call wins, and stops automatic titles for good', async () => {
    const model = new ControlledModel();
    const { store } = await fresh(model);
    await turn(store, 's', 'hello');
    await store.updateSession('s', { title: 'Mine' });
    model.answer('Model Title');
    await store.idle();
    expect((await store.getSession('s')).title).toBe('Mine');
    for (let i = 2; i <= 6; i++) await turn(store, 's', `turn ${i}`);
    expect(model.requests).toHaveLength(1);
    expect((await store.getSession('s')).title).toBe('Mine');
  });

  it('runs again after turns 6, 16 and 40 of the current branch with the last 20 messages', async () => {
    const model = new ControlledModel();
    const { store } = await fresh(model);
    await turn(store, 's', 'turn 1');
    model.answer('First');
    await store.idle();
    for (let i = 2; i <= 16; i++) {
      await turn(store, 's', `turn ${i}`);
      if (model.pending > 0) {
        model.answer(`Title at ${i}`);
        await store.idle();
      }
    }
    expect(model.requests).toHaveLength(3);
    expect(model.requests[1]!.messages).toHaveLength(12);
    expect(model.requests[2]!.messages).toHaveLength(20);
    expect(model.requests[2]!.messages[19]).toEqual({ role: 'assistant', content: 'ok' });
    expect((await store.getSession('s')).title).toBe('Title at 16');
  });

  it('asks the model with the first characters of large messages, and titles from the whole first one', async () => {
    const model = new ControlledModel();
    const { store } = await fresh(model);
    // An attachment block longer than a stub keeps in memory: the title must skip all of it.
    const block = `<file name="notes.txt">\n${'n'.repeat(20_000)}\n</file>`;
    await turn(store, 's', `${block}\nThe real question`, 'r'.repeat(300_000));
    expect((await store.getSession('s')).title).toBe('The real question');
    model.answer('');
    await store.idle();
    for (let i = 2; i <= 6; i++) {
      await turn(store, 's', `turn ${i} ${'u'.repeat(300_000)}`, 'a'.repeat(300_000));
      if (model.pending > 0) model.answer(`Title at ${i}`);
      await store.idle();
    }
    expect(model.requests).toHaveLength(2);
    const later = model.requests[1]!.messages;
    expect(later).toHaveLength(12);
    // Each message is its first 1,000 characters: 12 of 300,000 would be 3.6 MB to a title model.
    for (const message of later.slice(2)) expect(message.content.length).toBe(1_000);
  });

  it('keepTitle: a titled session keeps its title and the model is not asked; an untitled one is still titled', async () => {
    const model = new ControlledModel();
    const { store } = await fresh(model);
    await store.createSession({ id: 'agent', agentId: 'claude-code', source: 'proxy:claude-code' });
    await store.appendMessage('agent', { role: 'user', content: 'Fix the parser' });
    await store.appendMessage('agent', { role: 'assistant', content: 'Done' });
    await store.finalizeTurn('agent');
    model.answer('Parser Fix');
    await store.idle();
    expect((await store.getSession('agent')).title).toBe('Parser Fix');
    const asked = model.requests.length;
    // The web chat answers in it (a Retry, an Edit) at a turn that would run the model again.
    for (let i = 2; i <= 6; i++) {
      await store.appendMessage('agent', { role: 'user', content: `turn ${i}` });
      await store.appendMessage('agent', { role: 'assistant', content: 'the web chat model says hi' });
      await store.finalizeTurn('agent', { keepTitle: true });
    }
    expect(model.requests).toHaveLength(asked);
    expect((await store.getSession('agent')).title).toBe('Parser Fix');
    await store.appendMessage('s', { role: 'user', content: 'Untitled so far' });
    await store.appendMessage('s', { role: 'assistant', content: 'ok' });
    await store.finalizeTurn('s', { keepTitle: true });
    expect((await store.getSession('s')).title).toBe('Untitled so far');
  });

  it('regenerate runs the model now without setting the lock', async () => {
    const model = new ControlledModel();
    const { store } = await fresh(model);
    await turn(store, 's', 'hello');
    model.answer('Auto');
    await store.idle();
    await store.updateSession('s', { title: 'Locked' });
    const regenerating = store.regenerateTitle('s');
    await new Promise((resolve) => setTimeout(resolve, 10));
    model.answer('Fresh Title');
    const row = await regenerating;
    expect(row.title).toBe('Fresh Title');
    expect((await store.getSession('s')).userTitled).toBe(false);
  });

  it('regenerate without a model is refused with the reason', async () => {
    const { store } = await fresh(null);
    await turn(store, 's', 'hello');
    await expect(store.regenerateTitle('s')).rejects.toBeInstanceOf(PreconditionError);
  });

  it("an agent's session goes to the model only with titleAgentSessions; the web chat's always", async () => {
    const model = new ControlledModel();
    const temp = await openTempStore({ titleModel: model, titleAgentSessions: false });
    cleanups.push(async () => {
      while (model.pending > 0) model.answer('');
      await temp.cleanup();
    });
    const { store } = temp;
    await store.createSession({ id: 'agent', source: 'proxy:claude-code', agentId: 'claude-code' });
    await store.createSession({ id: 'web', source: 'web' });
    await turn(store, 'agent', 'private prompt of the agent');
    await turn(store, 'web', 'question in the web chat');
    expect(model.requests.map((request) => request.messages[0]!.content)).toEqual(['question in the web chat']);
    expect((await store.getSession('agent')).title).toBe('private prompt of the agent');

    store.setTitleAgentSessions(true);
    await store.createSession({ id: 'agent-2', source: 'proxy:codex', agentId: 'codex' });
    await turn(store, 'agent-2', 'titled on request');
    expect(model.requests.map((request) => request.messages[0]!.content)).toEqual(['question in the web chat', 'titled on request']);
  });
});
