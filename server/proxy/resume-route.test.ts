import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareResume } from '@/lib/resume/index';
import type { FinishedExchange } from './recorder';

// The runtime reads its environment once: set it before importing anything that opens stores.
const root = mkdtempSync(join(tmpdir(), 'resume-route-'));
const dataDir = join(root, 'data');
process.env.OPENPROGRAM_DATA_DIR = dataDir;

let runtime: typeof import('@/server/runtime');
let recorder: typeof import('./recorder');
let userId: string;

beforeAll(async () => {
  runtime = await import('@/server/runtime');
  recorder = await import('./recorder');
  userId = (await runtime.getAuthStore().users.create({ email: 'r@resume.test', password: 'password-123456' })).id;
});

afterAll(async () => {
  await (await runtime.getUserStore(userId)).close();
  rmSync(root, { recursive: true, force: true });
});

type Json = Record<string, unknown>;
let replies = 0;

/** One finished Claude Code exchange as the proxy hands it to the recorder: the request, and a whole JSON answer. */
function exchange(agentSessionId: string, messages: Json[], answer: string): FinishedExchange {
  const body = Buffer.from(JSON.stringify({ model: 'claude-test', max_tokens: 100, stream: false, tools: [{ name: 'Write', input_schema: { type: 'object' } }], messages }));
  const reply = { id: `msg_${++replies}`, type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'text', text: answer }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };
  return {
    userId,
    wire: 'anthropic',
    upstream: 'anthropic',
    headers: { 'x-claude-code-session-id': agentSessionId, 'user-agent': 'claude-cli/2.1.0 (external, cli)' },
    body,
    bodyBytes: body.length,
    status: 200,
    contentType: 'application/json',
    bytes: Buffer.from(JSON.stringify(reply)),
    outcome: 'complete',
    endedAt: performance.now(),
  };
}

/** What Claude Code sends back of a transcript: each line's message, in order. */
function messagesOf(transcript: string): Json[] {
  return transcript
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { message: { role: string; content: unknown } }).message)
    .map((message) => ({ role: message.role, content: message.content }));
}

describe('a run resumed from a transcript we wrote, recorded through the proxy', () => {
  it('extends the session it came from as a branch from the chosen turn, not a session of its own', async () => {
    const original = '0a1b2c3d-0000-4000-8000-000000000001';
    const u1 = { role: 'user', content: 'write a.txt' };
    const u2 = { role: 'user', content: 'now b.txt' };
    await recorder.recordExchangeNow(exchange(original, [u1], 'wrote a.txt'));
    await recorder.recordExchangeNow(exchange(original, [u1, { role: 'assistant', content: [{ type: 'text', text: 'wrote a.txt' }] }, u2], 'wrote b.txt'));
    const store = await runtime.getUserStore(userId);
    const sessionId = `cc-${original}`;
    expect((await store.getSession(sessionId)).turnCount).toBe(2);
    const firstReply = (await store.getBranch(sessionId))[1]!;

    const file = await prepareResume(store, { dataDir, userId }, { sessionId, turn: 1, agent: 'claude', cwd: '/tmp/resume-here' });
    expect(file.nodeId).toBe(firstReply.id);
    const history = messagesOf(file.content);
    const first = await recorder.recordExchangeNow(exchange(file.agentSessionId, [...history, { role: 'user', content: 'instead, c.txt' }], 'wrote c.txt'));
    expect(first).toMatchObject({ sessionId, turn: 3 });
    expect(store.hasSession(`cc-${file.agentSessionId}`)).toBe(false);

    // The next exchange of that run sends what came since: it follows on, nothing recorded twice.
    const since = [{ role: 'user', content: 'instead, c.txt' }, { role: 'assistant', content: [{ type: 'text', text: 'wrote c.txt' }] }, { role: 'user', content: 'and d.txt' }];
    const second = await recorder.recordExchangeNow(exchange(file.agentSessionId, [...history, ...since], 'wrote d.txt'));
    expect(second).toMatchObject({ sessionId, turn: 4 });

    const branch = await store.getBranch(sessionId);
    expect(branch.map((message) => `${message.role}:${message.content}`)).toEqual([
      'user:write a.txt',
      'assistant:wrote a.txt',
      'user:instead, c.txt',
      'assistant:wrote c.txt',
      'user:and d.txt',
      'assistant:wrote d.txt',
    ]);
    // A fork at the first reply: the original second turn and the resumed run are siblings.
    const forks = branch[2]!.siblings;
    expect(forks).toHaveLength(2);
    const nodes = await store.getNodes(sessionId);
    expect(nodes.filter((node) => node.role === 'user' && node.content === 'write a.txt')).toHaveLength(1);
    expect(nodes.find((node) => node.content === 'now b.txt')!.parentId).toBe(firstReply.id);
  });

  it('a run no resume link names is its own session, as before', async () => {
    const other = '0a1b2c3d-0000-4000-8000-000000000009';
    const summary = await recorder.recordExchangeNow(exchange(other, [{ role: 'user', content: 'write a.txt' }], 'wrote a.txt'));
    expect(summary?.sessionId).toBe(`cc-${other}`);
  });
});
