import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '@/lib/auth/index';
import { startModelServer, type ModelServer } from '@/lib/llm/testing/model-server';
import type { RecordedSummary } from './recorder';
import { listenProxy } from './testing/loopback-proxy';

// The runtime reads its environment once: set it before importing anything that opens stores.
const root = mkdtempSync(join(tmpdir(), 'upstream-retry-'));
process.env.OPENPROGRAM_DATA_DIR = join(root, 'data');

let model: ModelServer;
let proxy: Awaited<ReturnType<typeof listenProxy>>;
let origin: string;
let runtime: typeof import('@/server/runtime');
let api: typeof import('@/server/api/root');
const users: (UserRecord & { token: string })[] = [];
const recorded: (RecordedSummary & { userId: string })[] = [];

const SYSTEM = 'You are the agent. Work in the repository.';
const TOOLS = [{ name: 'Write', description: 'write a file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } }];
const STORED_KEY = 'sk-ant-stored-for-retry';

function callerFor(user: UserRecord) {
  return api.createCaller({ headers: new Headers(), user, via: 'token', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });
}

/** One exchange as Claude Code sends it (its session header, tools, a system prompt), recorded before this resolves. */
async function claudeCodeExchange(headers: Record<string, string>, sessionUuid: string, prompt: string): Promise<RecordedSummary> {
  const before = recorded.length;
  const response = await fetch(`${origin}/proxy/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'user-agent': 'claude-cli/2.1.0 (external, cli)', 'x-claude-code-session-id': sessionUuid, ...headers },
    body: JSON.stringify({ model: 'claude-opus-test', max_tokens: 200, system: [{ type: 'text', text: SYSTEM }], tools: TOOLS, messages: [{ role: 'user', content: prompt }] }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  await expect.poll(() => recorded.length, { timeout: 5000 }).toBeGreaterThan(before);
  return recorded[before]!;
}

beforeAll(async () => {
  model = await startModelServer();
  process.env.OPENPROGRAM_PROXY_ANTHROPIC_URL = model.root;
  process.env.OPENPROGRAM_LLM_BASE_URL = model.url;
  process.env.OPENPROGRAM_LLM_MODEL = 'web-chat-model';
  runtime = await import('@/server/runtime');
  api = await import('@/server/api/root');
  const recorder = await import('./recorder');
  recorder.onRecorded((summary) => recorded.push(summary));
  const auth = runtime.getAuthStore();
  for (const email of ['keyed@retry.test', 'own-key@retry.test']) {
    const user = await auth.users.create({ email, password: 'password-123456' });
    users.push({ ...user, passwordHash: 'x', updatedAt: 0, token: (await auth.tokens.create(user.id, { name: 'agent' })).token });
  }
  runtime.getProxyUpstreams().set(users[0]!.id, { name: 'anthropic', kind: 'anthropic', key: STORED_KEY });
  proxy = await listenProxy();
  origin = proxy.origin;
});

afterAll(async () => {
  await proxy.close();
  const { getChatDispatcher } = await import('@/server/chat/runtime');
  await getChatDispatcher().idle();
  for (const user of users) await (await runtime.getUserStore(user.id)).close();
  await model.close();
  rmSync(root, { recursive: true, force: true });
});

describe('Retry on a recorded agent reply (issue 28 item 6)', () => {
  it('sends the kept request (system prompt, messages, tools) again through the upstream with the stored key, records the answer as a sibling, keeps the title', async () => {
    const user = users[0]!;
    const uuid = '5b0c7a52-1111-4a6e-9f00-000000000001';
    const first = await claudeCodeExchange({ 'x-api-key': user.token }, uuid, 'explain the marimba [[words:4]]');
    const sessionId = first.sessionId;
    expect(sessionId).toBe(`cc-${uuid}`);
    const caller = callerFor(user);
    // Titled as recorded (from its first prompt), not renamed by the person: nothing locks it.
    const titled = (await caller.session.get({ id: sessionId })).title;
    expect(titled).toBeTruthy();
    const state = await caller.chat.state({ sessionId });
    expect(state.agentUpstreams).toContain('anthropic');
    const [reply] = (await caller.message.branch({ sessionId })).filter((message) => message.role === 'assistant');
    expect(reply!.metadata['proxy']).toMatchObject({ upstream: 'anthropic', request_kept: true });

    const sentBefore = model.requests.length;
    const retried = await caller.chat.retry({ sessionId, assistantId: first.replyId! });
    expect(retried).toMatchObject({ via: 'upstream', parentId: reply!.parentId });
    const sent = model.requests.slice(sentBefore);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.wire).toBe('anthropic');
    expect(sent[0]!.headers['x-api-key']).toBe(STORED_KEY);
    expect(JSON.stringify(sent[0]!.headers)).not.toContain(user.token);
    expect(sent[0]!.body).toMatchObject({ model: 'claude-opus-test', system: [{ type: 'text', text: SYSTEM }], tools: TOOLS, messages: [{ role: 'user', content: 'explain the marimba [[words:4]]' }] });

    // The answer is a sibling of the reply retried, the head on it; the session keeps its title and agent.
    const branch = await caller.message.branch({ sessionId });
    const newReply = branch.at(-1)!;
    expect(newReply.id).toBe(retried.replyId);
    expect(newReply.id).not.toBe(first.replyId);
    expect(newReply.parentId).toBe(reply!.parentId);
    expect(newReply.siblings).toEqual(expect.arrayContaining([first.replyId, newReply.id]));
    const session = await caller.session.get({ id: sessionId });
    expect(session.title).toBe(titled);
    expect(session.agentId).toBe('claude-code');
  });

  it('a reply whose key passed through unstored: no upstream to offer, and Retry is the web chat’s', async () => {
    const user = users[1]!;
    const first = await claudeCodeExchange({ 'x-entity-memory-token': user.token, 'x-api-key': 'sk-ant-agents-own' }, '5b0c7a52-1111-4a6e-9f00-000000000002', 'a question [[words:3]]');
    const caller = callerFor(user);
    expect((await caller.chat.state({ sessionId: first.sessionId })).agentUpstreams).toEqual([]);
    const sentBefore = model.requests.length;
    const retried = await caller.chat.retry({ sessionId: first.sessionId, assistantId: first.replyId! });
    expect(retried.via).toBe('web chat');
    const { getChatDispatcher } = await import('@/server/chat/runtime');
    await getChatDispatcher().idle();
    // The web chat's model answered, not the agent's upstream with the agent's key.
    expect(model.requests.slice(sentBefore).map((request) => request.wire)).toEqual(['chat']);
  });
});
