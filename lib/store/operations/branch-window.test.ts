import { describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { tempStoresPerTest } from '../testing/temp-store.js';
import type { SessionStore } from '../session-store.js';

describe('branch windows and branch tips', () => {
  const open = tempStoresPerTest();

  async function fresh(): Promise<SessionStore> {
    return (await open()).store;
  }

  /** u0 a0 u1 a1 … on one branch, with a tool call under every assistant message. */
  async function linear(store: SessionStore, id: string, turns: number): Promise<void> {
    await store.createSession({ id });
    for (let i = 0; i < turns; i++) {
      await store.appendMessage(id, { id: `u${i}`, role: 'user', content: `question ${i}` });
      await store.appendMessage(id, { id: `a${i}`, role: 'assistant', content: `answer ${i}` });
      await store.appendMessage(id, { id: `t${i}`, role: 'tool', content: { ok: i }, calledBy: `a${i}`, name: 'probe' });
    }
  }

  it('pages a branch from the newest messages back to the root, with the same messages as the whole branch', async () => {
    const store = await fresh();
    await linear(store, 's', 12); // 24 conversation messages
    const whole = await store.getBranch('s');
    const pages: string[][] = [];
    let before: string | null = null;
    let page = await store.getBranchWindow('s', { limit: 10 });
    for (;;) {
      pages.unshift(page.map((m) => m.id));
      // Older messages exist while the oldest one has a parent; it is the next page's anchor.
      if (!page[0]?.parentId) break;
      before = page[0].id;
      page = await store.getBranchWindow('s', { limit: 10, before });
    }
    expect(pages.map((p) => p.length)).toEqual([4, 10, 10]);
    expect(pages.flat()).toEqual(whole.map((m) => m.id));
    const newest = await store.getBranchWindow('s', { limit: 10 });
    expect(newest).toEqual(whole.slice(-10));
    expect(newest[newest.length - 1]!.toolCalls.map((m) => m.id)).toEqual(['t11']);
    // No limit: the branch up to the message, without it.
    expect((await store.getBranchWindow('s', { before: 'u2' })).map((m) => m.id)).toEqual(['u0', 'a0', 'u1', 'a1']);
    expect(await store.getBranchWindow('s', { before: 'u0', limit: 5 })).toEqual([]);
  });

  it('pages forward with after, up to the branch head', async () => {
    const store = await fresh();
    await linear(store, 's', 5); // u0 a0 … u4 a4
    expect((await store.getBranchWindow('s', { after: 'a1', limit: 3 })).map((m) => m.id)).toEqual(['u2', 'a2', 'u3']);
    expect((await store.getBranchWindow('s', { after: 'u3', limit: 10 })).map((m) => m.id)).toEqual(['a3', 'u4', 'a4']);
    expect(await store.getBranchWindow('s', { after: 'a4', limit: 10 })).toEqual([]);
    await expect(store.getBranchWindow('s', { after: 'a1', before: 'a2' })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('opens around a message: on the current branch when it is on it, else on its newest branch, head unmoved', async () => {
    const store = await fresh();
    await linear(store, 's', 30); // 60 conversation messages
    const around = await store.getBranchAround('s', 'u10', 10);
    expect(around).toMatchObject({ headId: 'a29', current: true });
    // half the window before it (u10 included), half after
    expect(around.messages.map((m) => m.id)).toEqual(['u8', 'a8', 'u9', 'a9', 'u10', 'a10', 'u11', 'a11', 'u12', 'a12']);
    // near the head there is less to show after it
    expect((await store.getBranchAround('s', 'u29', 6)).messages.map((m) => m.id)).toEqual(['a26', 'u27', 'a27', 'u28', 'a28', 'u29', 'a29'].slice(1));

    // a fork: a reply retried at u1 leaves the first reply's branch behind
    await store.createSession({ id: 'f' });
    await store.appendMessage('f', { id: 'u1', role: 'user', content: 'q' });
    await store.appendMessage('f', { id: 'a1', role: 'assistant', content: 'first answer' });
    await store.appendMessage('f', { id: 'u2', role: 'user', content: 'follow-up on the first' });
    await store.appendMessage('f', { id: 'b1', role: 'assistant', content: 'second answer', parentId: 'u1' });
    await store.setHead('f', 'b1');
    const other = await store.getBranchAround('f', 'a1', 10);
    expect(other).toMatchObject({ headId: 'u2', current: false });
    expect(other.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u2']);
    expect((await store.getSession('f')).headId).toBe('b1');
    await expect(store.getBranchAround('f', 'nope', 10)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reads another branch by its head and reports the forks', async () => {
    const store = await fresh();
    await store.createSession({ id: 'f' });
    await store.appendMessage('f', { id: 'u1', role: 'user', content: 'hi' });
    await store.appendMessage('f', { id: 'a1', role: 'assistant', content: 'first' });
    await store.appendMessage('f', { id: 'a2', role: 'assistant', content: 'second', parentId: 'u1' });
    expect((await store.getBranchWindow('f', { limit: 1 })).map((m) => [m.id, m.siblings])).toEqual([['a1', ['a1', 'a2']]]);
    expect((await store.getBranchWindow('f', { limit: 5, headId: 'a2' })).map((m) => m.id)).toEqual(['u1', 'a2']);
  });

  it('refuses unknown, malformed and non-conversation anchors', async () => {
    const store = await fresh();
    await linear(store, 's', 1);
    await expect(store.getBranchWindow('s', { before: 'nope', limit: 3 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.getBranchWindow('s', { before: '../x', limit: 3 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.getBranchWindow('s', { before: 't0', limit: 3 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.getBranchWindow('s', { headId: 't0', limit: 3 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.getBranchWindow('s', { limit: 0 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.getBranchWindow('nope', { limit: 3 })).rejects.toBeInstanceOf(NotFoundError);
    await store.createSession({ id: 'empty' });
    expect(await store.getBranchWindow('empty', { limit: 3 })).toEqual([]);
  });

  it('finds the newest tip under a message, whatever branch is current', async () => {
    const store = await fresh();
    await store.createSession({ id: 't' });
    // u1 ─ a1 ─ u2 ─ a2          (older tip a2)
    //   │         └─ a2b ─ u3 ─ a3 (newest tip a3, under a1)
    //   └ a1b                     (a sibling of a1 that ends at once)
    await store.appendMessage('t', { id: 'u1', role: 'user', content: 'q1' });
    await store.appendMessage('t', { id: 'a1', role: 'assistant', content: 'r1' });
    await store.appendMessage('t', { id: 'u2', role: 'user', content: 'q2' });
    await store.appendMessage('t', { id: 'a2', role: 'assistant', content: 'r2' });
    await store.appendMessage('t', { id: 'a1b', role: 'assistant', content: 'r1 again', parentId: 'u1' });
    await store.appendMessage('t', { id: 'a2b', role: 'assistant', content: 'r2 again', parentId: 'u2' });
    await store.appendMessage('t', { id: 'u3', role: 'user', content: 'q3', parentId: 'a2b' });
    await store.appendMessage('t', { id: 'a3', role: 'assistant', content: 'r3', parentId: 'u3' });
    expect(await store.tipOf('t', 'a1')).toEqual({ headId: 'a3' });
    expect(await store.tipOf('t', 'a2')).toEqual({ headId: 'a2' });
    expect(await store.tipOf('t', 'a1b')).toEqual({ headId: 'a1b' });
    expect(await store.tipOf('t', 'u1')).toEqual({ headId: 'a3' });
    // The tip is on the branch of the message asked about.
    const branch = await store.getBranch('t', (await store.tipOf('t', 'a2b')).headId);
    expect(branch.map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2b', 'u3', 'a3']);
    await expect(store.tipOf('t', 'nope')).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.tipOf('t', '../x')).rejects.toBeInstanceOf(InvalidInputError);
  });
});
