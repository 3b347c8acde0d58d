import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createChatClient, timeoutFromEnv } from '@/lib/llm/chat-client';
import { startModelServer, type ModelServer } from '@/lib/llm/testing/model-server';
import { openTempStore } from '@/lib/store/testing/temp-store';
import type { SessionStore } from '@/lib/store/index';
import { mkdirSync } from 'node:fs';
import { cleanupTempDirs, git, makeRepo, tempDir } from '@/lib/store/testing/project-repos';
import { ChatDispatcher } from './dispatcher';
import type { ChatEvent } from '@/server/events/live-events';
import { failInterruptedTurns, noteTurnStarted } from './turn-journal';
import { UserGate } from '@/lib/cluster/move/index';

/** These tests run no move: a turn holds no gate. */
const outsideAnyMove = () => () => undefined;

// The real dispatcher, a real store on a temporary directory and the loopback model server.
describe('the chat dispatcher', () => {
  let server: ModelServer;
  let store: SessionStore;
  let cleanup: () => Promise<void>;
  let events: ChatEvent[];
  let chat: ChatDispatcher;
  let workspace: string;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server.close());
  beforeEach(async () => {
    workspace = tempDir();
    ({ store, cleanup } = await openTempStore({ workspaceRoot: workspace }));
    events = [];
    const model = createChatClient({ baseUrl: server.url, model: 'unit-model', timeoutMs: 5_000 });
    chat = new ChatDispatcher({ publish: (_user, event) => events.push(event), chatModel: async () => ({ model }), holdWrite: outsideAnyMove });
  });
  afterEach(async () => {
    await chat.idle();
    await cleanup();
    cleanupTempDirs();
  });

  it('creates the session with its first message and streams, commits and titles the reply', async () => {
    const { sessionId, userMessageId } = await chat.send('u1', store, { content: 'hello there world' });
    expect(store.listSessions().rows.map((row) => row.id)).toEqual([sessionId]);
    expect((await store.getSession(sessionId)).status).toBe('running');
    await expect(chat.send('u1', store, { sessionId, content: 'again' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await chat.idle();

    const branch = await store.getBranch(sessionId);
    expect(branch.map((m) => [m.role, m.content])).toEqual([
      ['user', 'hello there world'],
      ['assistant', 'You said: hello there world'],
    ]);
    expect(branch[0]!.id).toBe(userMessageId);
    const replyId = branch[1]!.id;
    const deltas = events.filter((event) => event.type === 'chat_delta').map((event) => event.data['delta']);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('You said: hello there world');
    expect(events.at(-1)).toEqual({ type: 'chat_done', data: { sessionId, messageId: replyId, status: 'idle' } });
    const detail = await store.getSession(sessionId);
    expect(detail).toMatchObject({ status: 'idle', turnCount: 1, title: 'hello there world' });
    const commits = await store.listCommits(sessionId);
    expect(commits.commits[0]).toMatchObject({ turn: 1, message: 'turn: hello there world', nodeIds: [userMessageId, replyId] });
    const diff = await store.commitDiff(sessionId, commits.commits[0]!.sha);
    expect(diff.files.map((file) => file.path)).toContain(`context/commits/${replyId}.json`);
  });

  it('runs a tool call in the project, commits the agent write and answers with the result', async () => {
    mkdirSync(join(workspace, 'app'));
    const project = makeRepo({ 'README.md': 'hi\n' }, join(workspace, 'app'));
    const created = await store.createProject(project, 'App');
    const marker = '[[tool:write_file {"path":"notes/a.txt","content":"from the agent"}]]';
    const { sessionId } = await chat.send('u1', store, { projectId: created.id, content: `write it ${marker}` });
    await chat.idle();
    expect(readFileSync(join(project, 'notes', 'a.txt'), 'utf8')).toBe('from the agent');
    expect(git(project, 'log', '-1', '--format=%an|%s')).toBe(`agent (unit-model via Entity Memory)|[agent ${sessionId}] turn 1: ${[...`write it ${marker}`].slice(0, 60).join('')}`);
    const nodes = await store.getNodes(sessionId);
    expect(nodes.map((node) => [node.role, node.name])).toEqual([
      ['user', ''],
      ['assistant', 'unit-model'],
      ['tool', 'write_file'],
      ['assistant', 'unit-model'],
    ]);
    expect(nodes[2]).toMatchObject({ calledBy: nodes[1]!.id, content: 'wrote 14 bytes to notes/a.txt', input: { path: 'notes/a.txt', content: 'from the agent' } });
    expect(nodes[3]!.content).toBe('Tool result: wrote 14 bytes to notes/a.txt');
    // The model got the call and its answer back, in OpenAI's shape.
    const followUp = server.requests.at(-1)!.body.messages!;
    expect(followUp.slice(-2).map((m) => m.role)).toEqual(['assistant', 'tool']);
  });

  it('refuses a path outside the project and says so to the model and in the transcript', async () => {
    const { sessionId } = await chat.send('u1', store, { content: '[[tool:read_file {"path":"../../etc/passwd"}]]' });
    await chat.idle();
    const tool = (await store.getNodes(sessionId)).find((node) => node.role === 'tool')!;
    expect(tool.content).toMatch(/^Refused: .*leads out of the project folder/);
    expect(tool.metadata['refused']).toBe(true);
  });

  it('ends failed on a model error, keeping the user message, and cancelled on cancel', async () => {
    const failed = await chat.send('u1', store, { content: 'boom [[fail]]' });
    await chat.idle();
    expect((await store.getSession(failed.sessionId)).status).toBe('failed');
    expect((await store.getBranch(failed.sessionId)).map((m) => m.role)).toEqual(['user']);
    expect(events.at(-1)).toMatchObject({ type: 'chat_error', data: { sessionId: failed.sessionId, message: expect.stringMatching(/500/) } });
    expect(chat.lastError('u1', failed.sessionId)).toMatch(/500/);

    const slow = await chat.send('u1', store, { content: 'long [[delay:50]] [[words:200]]' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await chat.cancel('u1', store, slow.sessionId)).toEqual({ cancelled: true });
    const detail = await store.getSession(slow.sessionId);
    expect(detail.status).toBe('cancelled');
    const reply = (await store.getBranch(slow.sessionId))[1]!;
    expect(reply.metadata['cancelled']).toBe(true);
    expect(reply.content.length).toBeGreaterThan(0);
    expect(reply.content).not.toContain('word200');
  });

  it('stopUser ends every running turn of that user (a disabled user), and no other user\'s', async () => {
    const first = await chat.send('u1', store, { content: 'one [[delay:50]] [[words:200]]' });
    const second = await chat.send('u1', store, { content: 'two [[delay:50]] [[words:200]]' });
    const other = await chat.send('u2', store, { content: 'other [[delay:5]] [[words:20]]' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await chat.stopUser('u1')).toBe(2);
    expect(chat.isRunning('u1', first.sessionId)).toBe(false);
    expect(chat.isRunning('u1', second.sessionId)).toBe(false);
    for (const id of [first.sessionId, second.sessionId]) {
      expect((await store.getSession(id)).status).toBe('cancelled');
      expect((await store.getBranch(id))[1]!.content).not.toContain('word200');
    }
    await chat.idle();
    expect((await store.getSession(other.sessionId)).status).toBe('idle');
    expect(await chat.stopUser('u1')).toBe(0);
  });

  it('Stop ends an agent\'s turn it does not run as interrupted, and says when nothing ran', async () => {
    const { row } = await store.createSession({ agentId: 'bot', source: 'api' });
    expect(await chat.cancel('u1', store, row.id)).toEqual({ cancelled: false });
    await store.beginTurn(row.id);
    await store.appendMessage(row.id, { role: 'user', content: 'then the agent died' });
    expect(await chat.cancel('u1', store, row.id)).toEqual({ cancelled: true });
    expect(await store.getSession(row.id)).toMatchObject({ status: 'cancelled', turnCount: 1, interruption: { reason: 'stopped' } });
  });

  it('runs a chat on the model it picked, with its own system prompt after ours', async () => {
    const picking = new ChatDispatcher({
      publish: (_user, event) => events.push(event),
      chatModel: async (requested) => ({ model: createChatClient({ baseUrl: server.url, model: requested ?? 'unit-model', timeoutMs: 5_000 }) }),
      holdWrite: outsideAnyMove,
    });
    const { sessionId } = await picking.send('u1', store, { content: 'first pick-me', model: 'picked-model' });
    await picking.idle();
    expect(await store.getChatSettings(sessionId)).toEqual({ model: 'picked-model', systemPrompt: null });
    await store.setChatSettings(sessionId, { systemPrompt: 'Answer like a pirate.' });
    await picking.send('u1', store, { sessionId, content: 'second pick-me' });
    await picking.idle();
    const received = server.requests.filter((request) => JSON.stringify(request.body.messages).includes('pick-me') && !JSON.stringify(request.body.messages).includes('descriptive title'));
    expect(received.map((request) => request.body.model)).toEqual(['picked-model', 'picked-model']);
    const system = String(received[1]!.body.messages![0]!.content);
    expect(system.startsWith('You are the assistant of Entity Memory')).toBe(true);
    expect(system.endsWith('\n\nAnswer like a pirate.')).toBe(true);
    expect(String(received[0]!.body.messages![0]!.content)).not.toContain('pirate');
  });

  it('resumes a failed turn from its question, and a cut-short reply with a new one beside it', async () => {
    const { sessionId } = await chat.send('u1', store, { content: 'first try fails [[fail:once]]' });
    await chat.idle();
    expect((await store.getSession(sessionId)).status).toBe('failed');
    expect(events.at(-1)).toMatchObject({ type: 'chat_error', data: { message: 'the model server answered 500: scripted failure of the test model' } });
    await chat.resume('u1', store, sessionId);
    await chat.idle();
    expect((await store.getBranch(sessionId)).map((m) => [m.role, m.content])).toEqual([
      ['user', 'first try fails [[fail:once]]'],
      ['assistant', 'You said: first try fails [[fail:once]]'],
    ]);
    expect((await store.getSession(sessionId)).status).toBe('idle');

    const cut = await chat.send('u1', store, { content: 'cut [[fail:stream]]' });
    await chat.idle();
    const [, partial] = await store.getBranch(cut.sessionId);
    expect(partial!.metadata['error']).toBeTruthy();
    await chat.resume('u1', store, cut.sessionId);
    await chat.idle();
    const nodes = await store.getNodes(cut.sessionId);
    // The cut reply stays as a sibling; the branch now ends in the new one.
    expect(nodes.filter((node) => node.role === 'assistant')).toHaveLength(2);
    expect((await store.getBranch(cut.sessionId)).at(-1)!.id).not.toBe(partial!.id);

    const empty = await store.createSession({ source: 'web' });
    await expect(chat.resume('u1', store, empty.row.id)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(chat.isRunning('u1', empty.row.id)).toBe(false);
  });

  it('ends failed when the model takes longer than the timeout', async () => {
    const model = createChatClient({ baseUrl: server.url, model: 'unit-model', timeoutMs: 300 });
    const impatient = new ChatDispatcher({ publish: (_user, event) => events.push(event), chatModel: async () => ({ model }), holdWrite: outsideAnyMove });
    const { sessionId } = await impatient.send('u1', store, { content: 'take your time [[wait:1500]]' });
    await impatient.idle();
    expect((await store.getSession(sessionId)).status).toBe('failed');
    expect(events.at(-1)).toMatchObject({ type: 'chat_error', data: { message: 'the model did not answer within 300 ms' } });
  });

  it('ends failed when a streamed reply trickles past OPENPROGRAM_LLM_TIMEOUT_MS, collections or not, keeping what arrived', async () => {
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const model = createChatClient({ baseUrl: server.url, model: 'unit-model', timeoutMs: timeoutFromEnv({ OPENPROGRAM_LLM_TIMEOUT_MS: '500' }) });
    const trickled = new ChatDispatcher({
      publish: (_user, event) => {
        events.push(event);
        if (event.type === 'chat_delta') collectGarbage();
      },
      chatModel: async () => ({ model }),
      holdWrite: outsideAnyMove,
    });
    const started = Date.now();
    const { sessionId } = await trickled.send('u1', store, { content: 'one word a tick [[delay:100]] [[words:40]]' });
    await trickled.idle();
    expect(Date.now() - started).toBeLessThan(3_000); // the whole reply takes over 4 s
    expect((await store.getSession(sessionId)).status).toBe('failed');
    expect(events.at(-1)).toMatchObject({ type: 'chat_error', data: { message: 'the model did not finish its answer within 500 ms' } });
    const reply = (await store.getBranch(sessionId))[1]!;
    expect(reply.role).toBe('assistant');
    expect(reply.content).toMatch(/^You said: /);
    expect(reply.content).not.toContain('word40');
  });

  it('is free for the next message by the time chat_done goes out', async () => {
    const model = createChatClient({ baseUrl: server.url, model: 'unit-model', timeoutMs: 5_000 });
    const outcomes: Promise<unknown>[] = [];
    const eager: ChatDispatcher = new ChatDispatcher({
      publish: (_user, event) => {
        if (event.type === 'chat_done' && outcomes.length === 0) outcomes.push(eager.send('u1', store, { sessionId: String(event.data['sessionId']), content: 'next' }));
      },
      chatModel: async () => ({ model }),
      holdWrite: outsideAnyMove,
    });
    await eager.send('u1', store, { content: 'first' });
    await eager.idle();
    await expect(outcomes[0]).resolves.toMatchObject({ userMessageId: expect.any(String) });
    await eager.idle();
  });

  it('holds the move gate until the turn has ended: a freeze begun while the reply streams waits for it', async () => {
    const gate = new UserGate(tempDir());
    const model = createChatClient({ baseUrl: server.url, model: 'unit-model', timeoutMs: 5_000 });
    const gated = new ChatDispatcher({ publish: (_user, event) => events.push(event), chatModel: async () => ({ model }), holdWrite: (userId) => gate.continueWrite(userId) });
    // What protectedProcedure does around chat.send: the mutation is a write of its own.
    const leaveSend = gate.enterWrite('u1');
    const { sessionId } = await gated.send('u1', store, { content: 'slowly [[delay:30]] [[words:10]]' });
    leaveSend();
    expect(gate.runningWrites('u1')).toBe(1);
    expect((await store.getSession(sessionId)).status).toBe('running');
    await gate.freeze('u1', 'move-1');
    // The freeze returned only once the reply was finalised: nothing of it can land after a final copy.
    expect((await store.getSession(sessionId)).status).toBe('idle');
    expect(events.at(-1)).toMatchObject({ type: 'chat_done', data: { sessionId, status: 'idle' } });
    expect(gate.runningWrites('u1')).toBe(0);
  });

  it('refuses to send without a model and writes nothing', async () => {
    const none = new ChatDispatcher({ publish: () => undefined, chatModel: async () => ({ model: null, reason: 'no model is configured: set it' }), holdWrite: outsideAnyMove });
    await expect(none.send('u1', store, { content: 'hi' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', message: 'chat needs a model: no model is configured: set it' });
    expect(store.listSessions().rows).toEqual([]);
  });

  it('ends a turn the last process left running as failed, committing what it wrote', async () => {
    const { row } = await store.createSession({});
    await store.beginTurn(row.id);
    await store.appendMessage(row.id, { role: 'user', content: 'interrupted' });
    noteTurnStarted(store, row.id, { turn: 1, model: 'unit-model' });
    expect(await failInterruptedTurns(store)).toEqual([row.id]);
    expect(await store.getSession(row.id)).toMatchObject({ status: 'failed', turnCount: 1 });
    expect(existsSync(join(store.stateDir, '.chat-turns', `${row.id}.json`))).toBe(false);
  });
});
