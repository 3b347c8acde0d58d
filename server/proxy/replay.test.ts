import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '@/lib/auth/index';
import { startModelServer, type ModelServer } from '@/lib/llm/testing/model-server';
import { model, nextRecording, origin, runtime, users, useProxyHarness } from './testing/proxy-harness';

// Issue 35 item 4: "Replay with…" sends the request the proxy kept for a reply to another model.
useProxyHarness();
// The second and the failing model servers are on loopback too.
process.env.OPENPROGRAM_PROXY_ALLOW_PRIVATE = '1';

let second: ModelServer;
let broken: ModelServer;
let api: typeof import('@/server/api/root');

// As Claude Code sends it: system blocks with cache_control, tools, metadata, streamed.
const SYSTEM = [
  { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.0' },
  { type: 'text', text: 'You are Claude Code.\n\nWork in the repository.', cache_control: { type: 'ephemeral' } },
];
const TOOLS = [{ name: 'Bash', description: 'run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];

function callerFor(userId: string) {
  const user = { id: userId, email: 'x@proxy.test', role: 'user', createdAt: 0 } as unknown as UserRecord;
  return api.createCaller({ headers: new Headers(), user, via: 'cookie', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });
}

/** One Claude Code exchange through the proxy, recorded: its session and reply. */
async function claudeCodeTurn(token: string, uuid: string, prompt: string, media: object[] = []) {
  const userId = users.find((user) => user.token === token)!.id;
  const recorded = nextRecording(userId);
  const response = await fetch(`${origin}/proxy/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': token, 'user-agent': 'claude-cli/2.1.0 (external, cli)', 'x-claude-code-session-id': uuid },
    body: JSON.stringify({ model: 'claude-recorded', max_tokens: 300, stream: true, metadata: { user_id: 'u-1' }, system: SYSTEM, tools: TOOLS, messages: [{ role: 'user', content: [{ type: 'text', text: prompt }, ...media] }] }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
  const [summary] = await recorded;
  return { sessionId: summary!.sessionId, replyId: summary!.replyId! };
}

/** Everything the session holds, to show a refused replay wrote nothing. */
async function nodesOf(userId: string, sessionId: string) {
  return (await callerFor(userId).message.nodes({ sessionId, limit: 200 })).messages.map((node) => node.id);
}

beforeAll(async () => {
  second = await startModelServer();
  broken = await startModelServer(0, '127.0.0.1', { fail: true });
  api = await import('@/server/api/root');
  const upstreams = runtime.getProxyUpstreams();
  const userId = users[0]!.id;
  upstreams.set(userId, { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-recorded' });
  upstreams.set(userId, { name: 'second', kind: 'anthropic', baseUrl: second.root, key: 'sk-ant-second' });
  upstreams.set(userId, { name: 'broken', kind: 'anthropic', baseUrl: broken.root, key: 'sk-ant-broken' });
  upstreams.set(userId, { name: 'oai', kind: 'openai', baseUrl: second.url, key: 'sk-openai' });
  upstreams.set(userId, { name: 'keyless', kind: 'anthropic', baseUrl: second.root });
});

afterAll(async () => {
  await second.close();
  await broken.close();
});

describe('Replay on another model (session.replay)', () => {
  it('sends the recorded request, equal but for its model, to the other upstream; the answer is a sibling marked as a replay, its branch named after the model', async () => {
    const user = users[0]!;
    const { sessionId, replyId } = await claudeCodeTurn(user.token, '7e1d0000-0000-4000-8000-000000000001', 'why does the marimba test flake? [[words:3]]');
    const original = model.requests.filter((request) => request.wire === 'anthropic').at(-1)!;
    const caller = callerFor(user.id);
    const reply = (await caller.message.branch({ sessionId })).find((message) => message.id === replyId);
    const replayed = await caller.session.replay({ sessionId, nodeId: replyId, upstream: 'second', model: 'claude-other' });

    expect(second.requests).toHaveLength(1);
    const sent = second.requests[0]!;
    expect(sent.headers['x-api-key']).toBe('sk-ant-second');
    expect(sent.body.model).toBe('claude-other');
    const strip = (body: object) => Object.fromEntries(Object.entries(body).filter(([key]) => key !== 'model'));
    // The system prompt's blocks (cache_control and all), messages, tools, metadata, stream: as recorded.
    expect(strip(sent.body)).toEqual(strip(original.body));

    expect(replayed).toMatchObject({ sessionId, of: replyId, parentId: reply!.parentId, model: 'claude-other', upstream: 'second' });
    const branch = await caller.message.branch({ sessionId });
    const answer = branch.at(-1)!;
    expect(answer.id).toBe(replayed.replyId);
    expect(answer.parentId).toBe(reply!.parentId);
    expect(answer.siblings).toEqual(expect.arrayContaining([replyId, replayed.replyId]));
    expect(answer.metadata).toMatchObject({ replay: { of: replyId, model: 'claude-other' }, model: 'claude-other', proxy: { upstream: 'second', request_kept: true } });
    // Usage recorded as for any exchange.
    expect(answer.metadata['usage']).toMatchObject({ model: 'claude-other' });
    const { nodes } = await caller.timeline.graph({ sessionId });
    expect(nodes.flatMap((node) => (node.tip ? [node.tip.name] : []))).toContain('claude-other');
  });

  it('the same model again through the recorded upstream gives its own sibling, even when it answers word for word as before', async () => {
    const user = users[0]!;
    const { sessionId, replyId } = await claudeCodeTurn(user.token, '7e1d0000-0000-4000-8000-000000000002', 'say the same [[words:2]]');
    const caller = callerFor(user.id);
    const replayed = await caller.session.replay({ sessionId, nodeId: replyId, model: 'claude-recorded' });
    expect(replayed.replyId).not.toBe(replyId);
    expect(replayed.upstream).toBe('anthropic');
    const [answer] = (await caller.message.branch({ sessionId })).slice(-1);
    expect(answer!.siblings).toHaveLength(2);
  });

  it('an upstream that refuses: its status and message, and nothing written', async () => {
    const user = users[0]!;
    const { sessionId, replyId } = await claudeCodeTurn(user.token, '7e1d0000-0000-4000-8000-000000000003', 'a question [[words:2]]');
    const caller = callerFor(user.id);
    const before = await nodesOf(user.id, sessionId);
    await expect(caller.session.replay({ sessionId, nodeId: replyId, upstream: 'broken', model: 'claude-other' })).rejects.toMatchObject({
      code: 'BAD_GATEWAY',
      message: expect.stringContaining('the broken upstream answered 500: scripted failure of the test model'),
    });
    expect(broken.requests).toHaveLength(1);
    expect(await nodesOf(user.id, sessionId)).toEqual(before);
  });

  it('refuses with the reason, writing nothing: no kept request, an upstream of the other kind or without a key, no such reply, nothing to change', async () => {
    const user = users[0]!;
    const { sessionId, replyId } = await claudeCodeTurn(user.token, '7e1d0000-0000-4000-8000-000000000004', 'another question [[words:2]]');
    const caller = callerFor(user.id);
    const before = await nodesOf(user.id, sessionId);
    const userMessage = (await caller.message.branch({ sessionId }))[0]!.id;
    await expect(caller.session.replay({ sessionId, nodeId: userMessage, model: 'm' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(caller.session.replay({ sessionId, nodeId: replyId, upstream: 'oai', model: 'gpt-x' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', message: expect.stringContaining("speaks openai's API") });
    await expect(caller.session.replay({ sessionId, nodeId: replyId, upstream: 'keyless' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', message: expect.stringContaining('no key') });
    await expect(caller.session.replay({ sessionId, nodeId: replyId })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(caller.session.replay({ sessionId, nodeId: replyId, model: 'bad\u0000model' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await nodesOf(user.id, sessionId)).toEqual(before);

    // A request with base64 media is not kept (kept-request.ts): its reply cannot be replayed.
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    const unkept = await claudeCodeTurn(user.token, '7e1d0000-0000-4000-8000-000000000005', 'not kept [[words:2]]', [image]);
    await expect(caller.session.replay({ sessionId: unkept.sessionId, nodeId: unkept.replyId, model: 'claude-other' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', message: expect.stringContaining('no kept request') });
  });

  it('via the chat model: the kept request carried over into Chat Completions, the answer a sibling marked as a replay by that model; an unknown chat model or an upstream beside it is refused, writing nothing', async () => {
    // The web chat's model server: the harness's loopback model server, as a self-hoster configures it.
    process.env.OPENPROGRAM_LLM_BASE_URL = model.url;
    process.env.OPENPROGRAM_LLM_MODEL = 'chat-model';
    const user = users[0]!;
    const { sessionId, replyId } = await claudeCodeTurn(user.token, '7e1d0000-0000-4000-8000-000000000006', 'replay me on the chat model [[words:4]]');
    const caller = callerFor(user.id);
    const before = await nodesOf(user.id, sessionId);
    await expect(caller.session.replay({ sessionId, nodeId: replyId, via: 'chat', model: 'not-offered' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', message: expect.stringContaining('does not offer not-offered') });
    await expect(caller.session.replay({ sessionId, nodeId: replyId, via: 'chat', upstream: 'second' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await nodesOf(user.id, sessionId)).toEqual(before);

    const sentBefore = model.requests.length;
    const replayed = await caller.session.replay({ sessionId, nodeId: replyId, via: 'chat' });
    const sent = model.requests.slice(sentBefore).filter((request) => request.wire === 'chat');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.model).toBe('chat-model');
    expect(sent[0]!.body.messages).toEqual([
      { role: 'system', content: `${SYSTEM[0]!.text}\n\n${SYSTEM[1]!.text}` },
      { role: 'user', content: 'replay me on the chat model [[words:4]]' },
    ]);
    expect(sent[0]!.body.tools).toEqual([{ type: 'function', function: { name: 'Bash', description: 'run a command', parameters: TOOLS[0]!.input_schema } }]);
    expect(replayed).toMatchObject({ sessionId, of: replyId, model: 'chat-model', upstream: null });
    const branch = await caller.message.branch({ sessionId });
    expect(branch.at(-1)!.id).toBe(replayed.replyId);
    expect(branch.at(-1)!.siblings).toEqual(expect.arrayContaining([replyId, replayed.replyId]));
    expect(branch.at(-1)!.metadata['replay']).toEqual({ of: replyId, model: 'chat-model' });
    // The loopback chat model echoes the last user message: the recorded answer is its answer.
    expect(branch.at(-1)!.content).toContain('You said: replay me on the chat model');
  });
});
