import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type APIRequestContext } from '@playwright/test';
import { startModelServer, type ModelServer } from '../../lib/llm/testing/model-server';
import { expectedMisdirected, misdirectedHeadersOf } from '../fixtures/misdirected';
import { startTestCluster, type TestCluster } from './harness';
import { adminAndTokenUser, chatWriter, importWriter, runMover, shardOf, trpcQuery, writer } from './move-writers-kit';

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

function proxyRequest(base: string, content: string, credentials: Record<string, string>): Promise<Response> {
  return fetch(`${base}/proxy/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...credentials },
    body: JSON.stringify({ model: 'test-model', max_tokens: 64, messages: [{ role: 'user', content }] }),
  });
}

const trpc = <T>(path: string, input: unknown) => trpcQuery<T>(cluster, user.token, path, input);

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
  let api: APIRequestContext;
  ({ admin, api, user } = await adminAndTokenUser(cluster, { email: EMAIL, password: PASSWORD }, 'recording agent'));
  await api.dispose();
});

test.afterAll(async () => {
  await admin?.dispose();
  await cluster?.stop();
  await model?.close();
});

test('x-api-key and x-entity-memory-token sent to an instance that does not own the user: the one 421, nothing upstream', async () => {
  const { shard, epoch } = await shardOf(cluster, user.id);
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
  const before = await shardOf(cluster, user.id);
  const target = [...cluster.instances.keys()].find((id) => id !== before.shard)!;

  // The agent: each request a new conversation, answered after a short wait, recorded after its answer.
  const agent = writer('proxied', (id) => proxyRequest(cluster.url, `proxied ${id} [[wait:150]]`, { 'x-entity-memory-token': user.token, 'x-api-key': OWN_PROVIDER_KEY }), 200);
  const importer = importWriter(cluster, user.token);
  // A chat turn streams for about a second after chat.send has answered; the next one starts when it ends.
  const chat = chatWriter(cluster, user.token, (id) => `chat ${id} [[delay:40]] [[words:25]]`);
  await expect.poll(() => Math.min(agent.acked.length, importer.acked.length, chat.acked.length), { timeout: 60_000 }).toBeGreaterThan(2);

  const move = await runMover(cluster, moverDir, [user.id, target]);
  expect(move.stderr).toBe('');
  expect(move.code).toBe(0);
  expect(move.last?.['result']).toMatchObject({ status: 'done', from: before.shard, to: target });
  expect(await shardOf(cluster, user.id)).toEqual({ shard: target, epoch: before.epoch + 1 });

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
  for (const [id, sessionId] of chat.sessions) {
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
