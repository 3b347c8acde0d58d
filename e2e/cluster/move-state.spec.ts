import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, request, test, type APIRequestContext, type Page } from '@playwright/test';
import { startModelServer, type ModelServer } from '../../lib/llm/testing/model-server';
import { bearer, sessionCookieOf, signIn } from '../fixtures/auth';
import { mutate, query } from '../fixtures/trpc';
import { CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD, CLUSTER_SECRET, startTestCluster, type TestCluster } from './harness';

// Issue 28 item 3 in a real cluster: a user's share links and stored provider key live in their
// own folder and go with them when they are moved; HAProxy routes `/s/<id>` by the link's owner,
// so a visitor signed in on another instance opens it before and after the move.
test.describe.configure({ mode: 'serial' });

const INSTANCE = 'x-entity-memory-instance';
const OWNER = { email: 'link-owner@cluster.test', password: 'link-owner-password' };
const VISITOR = { email: 'link-visitor@cluster.test', password: 'link-visitor-password' };
// What no file of the source may hold after the move.
const STORED_KEY = `sk-ant-moves-with-its-owner-${process.pid}`;
const PROMPT = 'the conversation that moves with its owner';

let cluster: TestCluster;
let model: ModelServer;
let admin: APIRequestContext;
let owner: { id: string; token: string; api: APIRequestContext };
let visitor: { id: string; api: APIRequestContext };
let moverDir: string;

async function shardOf(userId: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: cluster.postgres.url });
  await client.connect();
  try {
    return (await client.query<{ shard: string }>('SELECT shard FROM user_shard WHERE user_id = $1', [userId])).rows[0]!.shard;
  } finally {
    await client.end();
  }
}

async function signedIn(email: string, password: string): Promise<APIRequestContext> {
  const api = await request.newContext({ baseURL: cluster.url, extraHTTPHeaders: { origin: cluster.url }, timeout: 60_000 });
  expect(sessionCookieOf(await signIn(api, email, password)), `sign-in of ${email} through HAProxy`).toBeTruthy();
  return api;
}

/** `cluster move <user> <to>` as an operator runs it; resolves with its exit code and stderr. */
function runMover(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENPROGRAM_CLUSTER_DB: cluster.postgres.url, OPENPROGRAM_CLUSTER_SECRET: CLUSTER_SECRET };
  delete env['OPENPROGRAM_CLUSTER_DIRECTORY'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['cli/bin.mjs', 'cluster', 'move', ...args, '--json', '--data', moverDir], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** The agent's call through HAProxy with our token as its API key: the proxy sends the stored key upstream. */
async function agentCall(sessionId: string): Promise<{ status: number; instance: string | null; body: string }> {
  const response = await fetch(`${cluster.url}/proxy/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-entity-memory-session': sessionId, ...bearer(owner.token) },
    body: JSON.stringify({ model: 'claude-test', max_tokens: 50, messages: [{ role: 'user', content: PROMPT }] }),
  });
  return { status: response.status, instance: response.headers.get(INSTANCE), body: await response.text() };
}

/** Every file under `dir` whose bytes contain `needle`. */
function filesContaining(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...filesContaining(path, needle));
    else if (entry.isFile() && statSync(path).size < 50_000_000 && readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

/** The visitor opens the link in a browser: the shared conversation is there, served by `expected`. */
async function opensSharedConversation(page: Page, url: string, expected: string): Promise<void> {
  const response = await page.goto(url);
  expect(response?.status()).toBe(200);
  expect(response?.headers()[INSTANCE]).toBe(expected);
  await expect(page.getByRole('article', { name: 'Assistant' }).last()).toContainText(`You said: ${PROMPT}`);
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  model = await startModelServer();
  // The instances' default Anthropic upstream is the loopback fake (the admin's default may be internal).
  cluster = await startTestCluster({ instances: 3, env: { OPENPROGRAM_PROXY_ANTHROPIC_URL: model.root } });
  moverDir = join(process.env.E2E_SCRATCH_DIR ?? '/tmp', `cluster-state-mover-${process.pid}`);
  mkdirSync(moverDir, { recursive: true });
  admin = await signedIn(CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD);
  // Placed one per instance, fewest users first: the admin, the owner and the visitor each on their own.
  const ownerRow = await mutate<{ id: string }>(admin, 'admin.createUser', OWNER);
  expect(ownerRow.status, JSON.stringify(ownerRow.body)).toBe(200);
  const visitorRow = await mutate<{ id: string }>(admin, 'admin.createUser', VISITOR);
  expect(visitorRow.status, JSON.stringify(visitorRow.body)).toBe(200);
  const ownerApi = await signedIn(OWNER.email, OWNER.password);
  const token = await mutate<{ token: string }>(ownerApi, 'token.create', { name: 'agent' });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  owner = { id: ownerRow.data.id, token: token.data.token, api: ownerApi };
  visitor = { id: visitorRow.data.id, api: await signedIn(VISITOR.email, VISITOR.password) };
});

test.afterAll(async () => {
  await owner?.api.dispose();
  await visitor?.api.dispose();
  await admin?.dispose();
  await cluster?.stop();
  await model?.close();
});

test("a user's share link and stored key move with them; the link opens through HAProxy for a visitor on another instance, before and after; no key is left on the source", async ({ browser }) => {
  test.setTimeout(300_000);
  const source = await shardOf(owner.id);
  const visitorHome = await shardOf(visitor.id);
  expect(visitorHome, 'the visitor lives on another instance than the link owner').not.toBe(source);
  // The third instance: the visitor is signed in elsewhere before and after the move.
  const target = [...cluster.instances.keys()].find((id) => id !== source && id !== visitorHome)!;

  // The owner stores an Anthropic key; their agent records a conversation with it through HAProxy.
  const stored = await mutate(owner.api, 'proxy.setUpstream', { name: 'anthropic', kind: 'anthropic', key: STORED_KEY });
  expect(stored.status, JSON.stringify(stored.body)).toBe(200);
  const first = await agentCall('moving-share');
  expect(first.status, first.body).toBe(200);
  expect(first.instance).toBe(source);
  expect(model.requests.at(-1)!.headers['x-api-key']).toBe(STORED_KEY);
  // The recording is committed after the answer: the session has its exchange before it is shared.
  await expect.poll(async () => (await query<unknown[]>(owner.api, 'message.branch', { sessionId: 'moving-share' })).data?.length ?? 0, { timeout: 15_000 }).toBe(2);

  const link = await mutate<{ id: string }>(owner.api, 'share.create', { sessionId: 'moving-share', scope: 'live', expires: 'never' });
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  // HAProxy's links map learns the link's owner from share_link (the same sync as the users' map).
  await expect.poll(async () => cluster.haproxy(`show map ${cluster.linksMapPath}`), { timeout: 15_000 }).toContain(`${link.data.id} ${owner.id}`);

  const context = await browser.newContext({ storageState: await visitor.api.storageState() });
  const page = await context.newPage();
  const shareUrl = `${cluster.url}/s/${link.data.id}`;
  await opensSharedConversation(page, shareUrl, source);

  const moved = await runMover([owner.id, target]);
  expect(moved.stderr).toBe('');
  expect(moved.code).toBe(0);
  expect(await shardOf(owner.id)).toBe(target);
  expect(await shardOf(visitor.id)).not.toBe(target);

  // The link opens on the new owner, the visitor still signed in on their own instance.
  await expect.poll(async () => (await fetch(shareUrl, { method: 'HEAD' })).headers.get(INSTANCE), { timeout: 15_000 }).toBe(target);
  await opensSharedConversation(page, shareUrl, target);
  await context.close();

  // The stored key went along: the agent's next call reaches the loopback fake with it, from the target.
  await expect.poll(async () => (await fetch(`${cluster.url}/api/health`, { headers: bearer(owner.token) })).headers.get(INSTANCE), { timeout: 15_000 }).toBe(target);
  const before = model.requests.length;
  const after = await agentCall('moving-share');
  expect(after.status, after.body).toBe(200);
  expect(after.instance).toBe(target);
  expect(model.requests.length).toBe(before + 1);
  expect(model.requests.at(-1)!.headers['x-api-key']).toBe(STORED_KEY);

  // No byte of the key, and no file of the user, is left on the source.
  expect(filesContaining(cluster.instances.get(source)!.dataDir, STORED_KEY)).toEqual([]);
  expect(filesContaining(cluster.instances.get(target)!.dataDir, STORED_KEY)).toEqual([join(cluster.instances.get(target)!.dataDir, 'users', owner.id, 'proxy-upstreams.json')]);
});
