import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_RECORDED_ANSWER_BYTES } from '@/lib/proxy/limits';
import type { RecordedSummary } from './recorder';

/**
 * Issue 27 items 2 and 3 and the answer-header hardening, through the real handler against a
 * loopback upstream that answers by the request's `model`: a big stream, a big JSON body, an
 * answer held open, a trickle that never ends, an answer that sets a cookie.
 */
const root = mkdtempSync(join(tmpdir(), 'proxy-limits-'));
process.env.OPENPROGRAM_DATA_DIR = join(root, 'data');
process.env.OPENPROGRAM_PROXY_TIMEOUT_MS = '60000';

const BIG_BYTES = MAX_RECORDED_ANSWER_BYTES + 4 * 1024 * 1024;
const PIECE = 'abcdefghijklmnopqrstuvwxyz0123456789 '.repeat(1771); // ~64 KiB of text per event

let upstream: http.Server;
let server: http.Server;
let origin: string;
let runtime: typeof import('@/server/runtime');
const users: { id: string; token: string }[] = [];
const recorded: (RecordedSummary & { userId: string })[] = [];
/** what the upstream sent, per session header: its sha-256 and length */
const sent = new Map<string, { sha: string; bytes: number }>();
const held = new Set<http.ServerResponse>();
/** the session headers of every exchange the upstream held */
const heldSessions = new Set<string>();

function startUpstream(): Promise<string> {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string };
      const session = String(req.headers['x-test-session'] ?? '');
      const hash = createHash('sha256');
      let bytes = 0;
      const write = (text: string) => {
        const buffer = Buffer.from(text);
        hash.update(buffer);
        bytes += buffer.length;
        return res.write(buffer);
      };
      const done = () => {
        sent.set(session, { sha: hash.digest('hex'), bytes });
        res.end();
      };
      if (body.model === 'big-stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_big', type: 'message', role: 'assistant', model: 'big-stream', content: [], usage: { input_tokens: 1, output_tokens: 0 } } })}\n\n`);
        write(`event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`);
        const event = `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: PIECE } })}\n\n`;
        const pump = () => {
          while (bytes < BIG_BYTES) if (!write(event)) return void res.once('drain', pump);
          write(`event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`);
          done();
        };
        pump();
      } else if (body.model === 'big-json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        write(`{"id":"msg_json","type":"message","role":"assistant","model":"big-json","content":[{"type":"text","text":"`);
        const pump = () => {
          while (bytes < BIG_BYTES) if (!write(PIECE)) return void res.once('drain', pump);
          write(`"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`);
          done();
        };
        pump();
      } else if (body.model === 'hold') {
        // never answers: the exchange stays open until the client or the proxy ends it
        heldSessions.add(session);
        held.add(res);
        res.on('close', () => held.delete(res));
      } else if (body.model === 'trickle') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_t', type: 'message', role: 'assistant', model: 'trickle', content: [], usage: { input_tokens: 1, output_tokens: 0 } } })}\n\n`);
        write(`event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n`);
        const timer = setInterval(() => write(`event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'drip ' } })}\n\n`), 50);
        res.on('close', () => clearInterval(timer));
      } else {
        // a small answer that tries to set a cookie on our origin and be read as a page
        res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['em_session=stolen; Path=/', 'other=1'], 'x-upstream-header': 'kept' });
        write(JSON.stringify({ id: 'msg_small', type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: 'small' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }));
        done();
      }
    });
  });
  return new Promise((resolve) => upstream.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`)));
}

/** The next recording of `userId` in `sessionId` (they are committed after the client has its answer). */
function nextRecording(userId: string, sessionId: string): Promise<RecordedSummary & { userId: string }> {
  const mine = () => recorded.filter((entry) => entry.userId === userId && entry.sessionId === sessionId);
  const start = mine().length;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no recording of ${sessionId} came`)), 60_000);
    const check = () => {
      if (mine().length > start) {
        clearTimeout(timer);
        resolve(mine()[start]!);
      } else setTimeout(check, 10);
    };
    check();
  });
}

beforeAll(async () => {
  const upstreamUrl = await startUpstream();
  process.env.OPENPROGRAM_PROXY_ANTHROPIC_URL = upstreamUrl;
  process.env.OPENPROGRAM_PROXY_OPENAI_URL = `${upstreamUrl}/v1`;
  runtime = await import('@/server/runtime');
  const recorder = await import('./recorder');
  const { serveProxy } = await import('./handler');
  recorder.onRecorded((summary) => recorded.push(summary));
  const auth = runtime.getAuthStore();
  for (const email of ['a@limits.test', 'b@limits.test']) {
    const user = await auth.users.create({ email, password: 'password-123456' });
    users.push({ id: user.id, token: (await auth.tokens.create(user.id, { name: 'agent' })).token });
  }
  server = http.createServer((req, res) => void serveProxy(req, res));
  server.maxConnections = 10_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  for (const user of users) await runtime.closeUserStore(user.id);
  rmSync(root, { recursive: true, force: true });
});

const messagesBody = (model: string, stream = false) => JSON.stringify({ model, max_tokens: 10, stream, messages: [{ role: 'user', content: `ask ${model}` }] });
const headersFor = (user: { token: string }, session: string) => ({ 'content-type': 'application/json', 'x-entity-memory-token': user.token, 'x-api-key': 'sk-own', 'anthropic-version': '2023-06-01', 'x-entity-memory-session': session, 'x-test-session': session });

/** POST through the proxy with node's http (no pooling), read whole: status, headers, sha-256 and length of the body. */
function post(path: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; sha: string; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${path}`, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      const hash = createHash('sha256');
      let bytes = 0;
      let head = '';
      res.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        bytes += chunk.length;
        if (head.length < 4096) head += chunk.toString('utf8');
      });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, sha: hash.digest('hex'), bytes, text: head }));
      res.on('error', reject);
      res.on('close', () => (res.complete ? undefined : reject(new Error('the answer was broken off'))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Open an exchange the upstream never answers (count_tokens: forwarded, not recorded); resolves once the upstream holds it. */
function hold(user: { token: string }, session: string): Promise<http.ClientRequest> {
  const body = messagesBody('hold', true);
  const req = http.request(`${origin}/proxy/anthropic/v1/messages/count_tokens`, { method: 'POST', agent: false, headers: { ...headersFor(user, session), 'content-length': String(Buffer.byteLength(body)) } });
  req.on('error', () => {});
  req.end(body);
  return new Promise((resolve) => {
    const check = () => (heldSessions.has(session) ? resolve(req) : setTimeout(check, 5));
    check();
  });
}

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('a big upstream answer (issue 27 item 2)', () => {
  it('a stream past the copy limit reaches the client whole; the recorded reply is bounded and marked truncated', async () => {
    const [a] = users;
    const waiting = nextRecording(a!.id, 'big-stream');
    const answer = await post('/proxy/anthropic/v1/messages', headersFor(a!, 'big-stream'), messagesBody('big-stream', true));
    expect(answer.status).toBe(200);
    const upstreamSent = sent.get('big-stream')!;
    expect(upstreamSent.bytes).toBeGreaterThan(MAX_RECORDED_ANSWER_BYTES);
    expect(answer.bytes).toBe(upstreamSent.bytes);
    expect(answer.sha).toBe(upstreamSent.sha);
    expect(await waiting).toMatchObject({ sessionId: 'big-stream', outcome: 'complete' });
    const store = await runtime.getUserStore(a!.id);
    const reply = (await store.getNodes('big-stream')).find((node) => node.role === 'assistant')!;
    // within the store's message limit (1 MiB), a prefix of what came
    expect(Buffer.byteLength(reply.content)).toBeLessThanOrEqual(1024 * 1024);
    expect(reply.content.length).toBeGreaterThan(512 * 1024);
    expect(PIECE.repeat(Math.ceil(reply.content.length / PIECE.length) + 1).startsWith(reply.content)).toBe(true);
    expect(reply.metadata['proxy']).toMatchObject({ outcome: 'complete', truncated: true, response_bytes: upstreamSent.bytes, recorded_bytes: MAX_RECORDED_ANSWER_BYTES });
  }, 120_000);

  it('a single JSON body past the copy limit reaches the client whole; recorded as not read, marked truncated, the turn not failed', async () => {
    const [a] = users;
    const waiting = nextRecording(a!.id, 'big-json');
    const answer = await post('/proxy/anthropic/v1/messages', headersFor(a!, 'big-json'), messagesBody('big-json'));
    expect(answer.status).toBe(200);
    expect(answer.sha).toBe(sent.get('big-json')!.sha);
    expect(answer.bytes).toBe(sent.get('big-json')!.bytes);
    expect(await waiting).toMatchObject({ sessionId: 'big-json', outcome: 'complete' });
    const store = await runtime.getUserStore(a!.id);
    const reply = (await store.getNodes('big-json')).find((node) => node.role === 'assistant')!;
    expect(reply.content).toBe('');
    expect(reply.metadata['error']).toMatch(/over the \d+ bytes the proxy keeps of one answer/);
    expect(reply.metadata['proxy']).toMatchObject({ truncated: true, response_bytes: sent.get('big-json')!.bytes });
    expect((await store.getSession('big-json')).status).toBe('idle');
  }, 120_000);

  it('a small answer is recorded whole and not marked', async () => {
    const [a] = users;
    const waiting = nextRecording(a!.id, 'small');
    const answer = await post('/proxy/anthropic/v1/messages', headersFor(a!, 'small'), messagesBody('small'));
    expect(answer.status).toBe(200);
    await waiting;
    const reply = (await (await runtime.getUserStore(a!.id)).getNodes('small')).find((node) => node.role === 'assistant')!;
    expect(reply.content).toBe('small');
    expect(reply.metadata['proxy']).not.toHaveProperty('truncated');
  });
});

describe('open exchanges per user (issue 27 item 3)', () => {
  it('past the cap a user gets 429 in the provider\'s own shape, and another user is still answered', async () => {
    process.env.OPENPROGRAM_PROXY_MAX_OPEN_PER_USER = '3';
    const [a, b] = users;
    const open: http.ClientRequest[] = [];
    try {
      for (let i = 0; i < 3; i++) open.push(await hold(a!, `held-${i}`));
      const before = heldSessions.size;
      const refused = await post('/proxy/anthropic/v1/messages', headersFor(a!, 'held-x'), messagesBody('hold', true));
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('2');
      expect(JSON.parse(refused.text)).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringContaining('OPENPROGRAM_PROXY_MAX_OPEN_PER_USER') } });
      const openai = await post('/proxy/openai/v1/chat/completions', { ...headersFor(a!, 'held-y'), authorization: 'Bearer sk-own' }, JSON.stringify({ model: 'hold', messages: [{ role: 'user', content: 'x' }] }));
      expect(openai.status).toBe(429);
      expect(JSON.parse(openai.text)).toEqual({ error: { message: expect.stringContaining('3 proxied exchanges open'), type: 'requests', param: null, code: 'rate_limit_exceeded' } });
      expect(heldSessions.size).toBe(before); // refused before anything went upstream
      // another user is not held by a's exchanges
      const other = await post('/proxy/anthropic/v1/messages', headersFor(b!, 'b-small'), messagesBody('b-small'));
      expect(other.status).toBe(200);
      // one of a's ends: a may open one more
      open.shift()!.destroy();
      await waitUntil(() => held.size === 2);
      open.push(await hold(a!, 'held-3'));
      expect(held.size).toBe(3);
    } finally {
      for (const req of open) req.destroy();
      await waitUntil(() => held.size === 0);
      delete process.env.OPENPROGRAM_PROXY_MAX_OPEN_PER_USER;
    }
  }, 60_000);

  it('no shared socket pool that one user can fill: 256 held exchanges of one user leave another user\'s answered', async () => {
    process.env.OPENPROGRAM_PROXY_MAX_OPEN_PER_USER = '1000';
    const [a, b] = users;
    const open: http.ClientRequest[] = [];
    try {
      const opening = Array.from({ length: 256 }, (_, i) => hold(a!, `pool-${i}`));
      open.push(...(await Promise.all(opening)));
      await waitUntil(() => held.size === 256);
      const other = await post('/proxy/anthropic/v1/messages', headersFor(b!, 'b-pool'), messagesBody('b-pool'));
      expect(other.status).toBe(200);
      expect(other.text).toContain('"small"');
      // answered while all of a's were still open (with a shared pool of 256 it came only once they timed out)
      expect(held.size).toBe(256);
    } finally {
      for (const req of open) req.destroy();
      await waitUntil(() => held.size === 0);
      delete process.env.OPENPROGRAM_PROXY_MAX_OPEN_PER_USER;
    }
  }, 120_000);

  it('an exchange past the overall deadline is ended and recorded as such: a trickle mid-stream, a silent upstream with a 504', async () => {
    process.env.OPENPROGRAM_PROXY_DEADLINE_MS = '600';
    const [, b] = users;
    try {
      let waiting = nextRecording(b!.id, 'trickle');
      const cut = await post('/proxy/anthropic/v1/messages', headersFor(b!, 'trickle'), messagesBody('trickle', true)).catch((error: unknown) => error);
      // the stream had begun: it is broken off (the client sees an aborted answer)
      expect(cut instanceof Error || (cut as { status: number }).status === 200).toBe(true);
      expect(await waiting).toMatchObject({ sessionId: 'trickle', outcome: 'deadline' });
      const store = await runtime.getUserStore(b!.id);
      const reply = (await store.getNodes('trickle')).find((node) => node.role === 'assistant')!;
      expect(reply.content).toMatch(/^(drip )+$/);
      expect(reply.metadata).toMatchObject({ error: expect.stringContaining('deadline'), proxy: { outcome: 'deadline' } });
      expect((await store.getSession('trickle')).status).toBe('failed');

      waiting = nextRecording(b!.id, 'silent');
      const silent = await post('/proxy/anthropic/v1/messages', headersFor(b!, 'silent'), messagesBody('hold', true));
      expect(silent.status).toBe(504);
      expect(JSON.parse(silent.text)).toEqual({ type: 'error', error: { type: 'timeout_error', message: expect.stringContaining("the proxy's deadline") } });
      expect(await waiting).toMatchObject({ sessionId: 'silent', outcome: 'deadline', status: 504 });
      await waitUntil(() => held.size === 0);
    } finally {
      delete process.env.OPENPROGRAM_PROXY_DEADLINE_MS;
    }
  }, 60_000);
});

describe('an upstream answer on our origin (issue 27 hardening)', () => {
  it('drops the upstream\'s set-cookie and adds a CSP of none and nosniff; other headers pass', async () => {
    const [a] = users;
    const waiting = nextRecording(a!.id, 'cookie');
    const answer = await post('/proxy/anthropic/v1/messages', headersFor(a!, 'cookie'), messagesBody('cookie'));
    expect(answer.status).toBe(200);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['content-security-policy']).toBe("default-src 'none'");
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-upstream-header']).toBe('kept');
    expect(answer.sha).toBe(sent.get('cookie')!.sha);
    await waiting;
  });
});
