import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, request, test, type APIRequestContext } from '@playwright/test';
import { startModelServer, type ModelServer } from '../../lib/llm/testing/model-server';
import { bearer, sessionCookieOf, signIn } from '../fixtures/auth';
import { expectedMisdirected, misdirectedHeadersOf } from '../fixtures/misdirected';
import { mutate } from '../fixtures/trpc';
import { CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD, CLUSTER_SECRET, startTestCluster, type TestCluster } from './harness';

// Issue 28's one gate in a real cluster: while a user is moved through HAProxy, an agent records
// through the recording proxy (the Anthropic wire, our token in x-entity-memory-token beside the
// agent's own key, against the loopback model), an import uploads and chat turns stream. Each
// writer is refused with 503 + Retry-After while frozen, goes on at the new owner, and no
// acknowledged write is lost. The proxy client is plain fetch in the Anthropic SDK's shape.
test.describe.configure({ mode: 'serial' });

const EMAIL = 'writers@cluster.test';
const PASSWORD = 'writers-user-password';
const OWN_PROVIDER_KEY = 'sk-ant-agents-own-key';

let model: ModelServer;
let cluster: TestCluster;
let admin: APIRequestContext;
let user: { id: string; token: string };
let moverDir: string;

async function shardOf(userId: string): Promise<{ shard: string; epoch: number }> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: cluster.postgres.url });
  await client.connect();
  try {
    const row = (await client.query('SELECT shard, epoch FROM user_shard WHERE user_id = $1', [userId])).rows[0] as { shard: string; epoch: string };
    return { shard: row.shard, epoch: Number(row.epoch) };
  } finally {
    await client.end();
  }
}

function runMover(args: string[]): Promise<{ code: number | null; stderr: string; last: Record<string, unknown> | null }> {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENPROGRAM_CLUSTER_DB: cluster.postgres.url, OPENPROGRAM_CLUSTER_SECRET: CLUSTER_SECRET };
  delete env['OPENPROGRAM_CLUSTER_DIRECTORY'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['cli/bin.mjs', 'cluster', 'move', ...args, '--json', '--data', moverDir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => {
      const lines = stdout.trim().split('\n').filter(Boolean);
      resolve({ code, stderr, last: lines.length ? (JSON.parse(lines.at(-1)!) as Record<string, unknown>) : null });
    });
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function proxyRequest(base: string, content: string, credentials: Record<string, string>): Promise<Response> {
  return fetch(`${base}/proxy/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...credentials },
    body: JSON.stringify({ model: 'test-model', max_tokens: 64, messages: [{ role: 'user', content }] }),
  });
}

const claudeCodeTranscript = (id: string) =>
  [
    { type: 'user', uuid: `${id}-1`, parentUuid: null, sessionId: id, timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: `imported ${id}` } },
    { type: 'assistant', uuid: `${id}-2`, parentUuid: `${id}-1`, sessionId: id, timestamp: '2026-11-20T10:00:01Z', message: { role: 'assistant', content: 'noted' } },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');

interface Writer {
  /** what the server acknowledged (200), by the id the writer gave it */
  acked: string[];
  /** 503s with their Retry-After */
  frozen: string[];
  misdirected: number;
  stop(): Promise<void>;
}

/**
 * One writer through HAProxy until stopped: each write sent again after a 503 (its Retry-After,
 * shortened here) or a 421 (HAProxy's map not yet following the flip), like a careful client.
 */
function writer(name: string, write: (id: string) => Promise<Response>, between = 0): Writer {
  let stopped = false;
  const state: Writer = { acked: [], frozen: [], misdirected: 0, stop: async () => {} };
  const running = (async () => {
    for (let i = 0; !stopped; i++) {
      const id = `${name}-${i}`;
      for (;;) {
        const response = await write(id).catch(() => null);
        if (response?.status === 200) {
          state.acked.push(id);
          break;
        }
        if (response?.status === 503 && response.headers.get('retry-after')) state.frozen.push(response.headers.get('retry-after')!);
        else if (response?.status === 421) state.misdirected++;
        else if (response) throw new Error(`${name} ${id} answered ${response.status}: ${await response.text()}`);
        await pause(100);
      }
      await pause(between);
    }
  })();
  state.stop = async () => {
    stopped = true;
    await running;
  };
  return state;
}

async function trpc<T>(path: string, input: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`${cluster.url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: bearer(user.token) });
  return { status: response.status, data: ((await response.json()) as { result?: { data: T } }).result?.data as T };
}

/** Every session of the user, page by page, through HAProxy. */
async function allSessions(): Promise<{ id: string; source: string }[]> {
  const rows: { id: string; source: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { status: number; data: { rows: { id: string; source: string }[]; nextCursor: string | null } } = await trpc('session.list', { scope: 'all', limit: 200, ...(cursor ? { cursor } : {}) });
    expect(page.status).toBe(200);
    rows.push(...page.data.rows);
    cursor = page.data.nextCursor;
  } while (cursor);
  return rows;
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  model = await startModelServer();
  cluster = await startTestCluster({
    instances: 2,
    env: { OPENPROGRAM_LLM_BASE_URL: model.url, OPENPROGRAM_LLM_MODEL: 'test-model', OPENPROGRAM_PROXY_ANTHROPIC_URL: model.root },
  });
  moverDir = join(process.env.E2E_SCRATCH_DIR ?? '/tmp', `cluster-writers-mover-${process.pid}`);
  mkdirSync(moverDir, { recursive: true });
  admin = await request.newContext({ baseURL: cluster.url, extraHTTPHeaders: { origin: cluster.url }, timeout: 60_000 });
  expect(sessionCookieOf(await signIn(admin, CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD))).toBeTruthy();
  const created = await mutate<{ id: string }>(admin, 'admin.createUser', { email: EMAIL, password: PASSWORD });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const api = await request.newContext({ baseURL: cluster.url, extraHTTPHeaders: { origin: cluster.url }, timeout: 60_000 });
  expect(sessionCookieOf(await signIn(api, EMAIL, PASSWORD))).toBeTruthy();
  const token = await mutate<{ token: string }>(api, 'token.create', { name: 'recording agent' });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  await api.dispose();
  user = { id: created.data.id, token: token.data.token };
});

test.afterAll(async () => {
  await admin?.dispose();
  await cluster?.stop();
  await model?.close();
});

test('x-api-key and x-entity-memory-token sent to an instance that does not own the user: the one 421, nothing upstream', async () => {
  const { shard, epoch } = await shardOf(user.id);
  const wrong = [...cluster.instances.values()].find((instance) => instance.id !== shard)!;
  const expected = expectedMisdirected({ instance: shard, url: cluster.instances.get(shard)!.url, epoch });
  const marker = `must-not-reach-upstream-${Date.now()}`;
  const forms: Record<string, string>[] = [{ 'x-api-key': user.token }, { 'x-entity-memory-token': user.token, 'x-api-key': OWN_PROVIDER_KEY }];
  for (const credentials of forms) {
    const answer = await proxyRequest(wrong.url, marker, credentials);
    expect(answer.status).toBe(421);
    expect(misdirectedHeadersOf(answer.headers)).toEqual(expected.headers);
    expect(await answer.json()).toEqual(expected.body);
  }
  expect(model.requests.filter((received) => JSON.stringify(received.body).includes(marker))).toEqual([]);
  // Through HAProxy the same header forms reach the owner.
  const routed = await proxyRequest(cluster.url, `routed by x-entity-memory-token ${marker}`, { 'x-entity-memory-token': user.token, 'x-api-key': OWN_PROVIDER_KEY });
  expect(routed.status).toBe(200);
  expect(routed.headers.get('x-entity-memory-instance')).toBe(shard);
});

test('a move through HAProxy while the proxy records, an import uploads and chat turns stream: 503 + Retry-After while frozen, on at the new owner, 0 acknowledged writes lost', async () => {
  test.setTimeout(240_000);
  const before = await shardOf(user.id);
  const target = [...cluster.instances.keys()].find((id) => id !== before.shard)!;

  // The agent: each request a new conversation, answered after a short wait, recorded after its answer.
  const agent = writer('proxied', (id) => proxyRequest(cluster.url, `proxied ${id} [[wait:150]]`, { 'x-entity-memory-token': user.token, 'x-api-key': OWN_PROVIDER_KEY }), 200);
  const importer = writer('imported', (id) =>
    fetch(`${cluster.url}/api/import?name=${id}.jsonl`, { method: 'POST', headers: { ...bearer(user.token), 'content-type': 'application/octet-stream' }, body: claudeCodeTranscript(id) }),
    200,
  );
  // A chat turn streams for about a second after chat.send has answered; the next one starts when it ends.
  const chatSessions = new Map<string, string>();
  const chat = writer('chat', async (id) => {
    const response = await fetch(`${cluster.url}/api/trpc/chat.send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(user.token) },
      body: JSON.stringify({ content: `chat ${id} [[delay:40]] [[words:25]]` }),
    });
    if (response.status !== 200) return response;
    const sessionId = ((await response.clone().json()) as { result: { data: { sessionId: string } } }).result.data.sessionId;
    chatSessions.set(id, sessionId);
    for (;;) {
      const session = await trpc<{ status: string }>('session.get', { id: sessionId });
      if (session.status === 200 && session.data.status !== 'running') return response;
      await pause(100);
    }
  });
  await expect.poll(() => Math.min(agent.acked.length, importer.acked.length, chat.acked.length), { timeout: 60_000 }).toBeGreaterThan(2);

  const move = await runMover([user.id, target]);
  expect(move.stderr).toBe('');
  expect(move.code).toBe(0);
  expect(move.last?.['result']).toMatchObject({ status: 'done', from: before.shard, to: target });
  expect(await shardOf(user.id)).toEqual({ shard: target, epoch: before.epoch + 1 });

  // Each writer goes on at the new owner.
  const atFlip = { agent: agent.acked.length, importer: importer.acked.length, chat: chat.acked.length };
  await expect.poll(() => agent.acked.length > atFlip.agent + 2 && importer.acked.length > atFlip.importer + 2 && chat.acked.length > atFlip.chat + 1, { timeout: 60_000 }).toBe(true);
  await Promise.all([agent.stop(), importer.stop(), chat.stop()]);

  // Each was refused while frozen, with Retry-After, and sent again.
  for (const [name, refused] of [['proxy', agent], ['import', importer], ['chat', chat]] as const) {
    expect(refused.frozen.length, `${name} saw 503 while frozen`).toBeGreaterThan(0);
    expect([...new Set(refused.frozen)], `${name}'s Retry-After`).toEqual(['2']);
  }

  // Nothing acknowledged is missing on the new owner, read through HAProxy.
  const ids = new Set((await allSessions()).map((row) => row.id));
  expect(importer.acked.filter((id) => !ids.has(`cc-${id}`)), 'lost imports').toEqual([]);
  for (const [id, sessionId] of chatSessions) {
    if (!chat.acked.includes(id)) continue;
    const branch = await trpc<{ role: string; content: string }[]>('message.branch', { sessionId });
    expect(branch.data.map((message) => message.role), `chat ${id}`).toEqual(['user', 'assistant']);
    expect(branch.data[1]!.content, `chat ${id}'s reply whole`).toContain('word25');
  }
  const recordedPrompts = async () => {
    const prompts = new Set<string>();
    const rows = await allSessions();
    for (const row of rows.filter((candidate) => candidate.source !== 'web' && !candidate.id.startsWith('cc-'))) {
      for (const message of (await trpc<{ role: string; content: string }[]>('message.branch', { sessionId: row.id })).data) {
        const proxied = /^proxied (proxied-\d+)/.exec(message.content);
        if (message.role === 'user' && proxied) prompts.add(proxied[1]!);
      }
    }
    return prompts;
  };
  // The last recordings at the new owner are committed just after their answers.
  await expect.poll(async () => {
    const prompts = await recordedPrompts();
    return agent.acked.filter((id) => !prompts.has(id));
  }, { timeout: 20_000 }).toEqual([]);
});
