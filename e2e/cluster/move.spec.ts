import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, request, test, type APIRequestContext } from '@playwright/test';
import { MOVE_STEPS } from '../../lib/cluster/move/index';
import { bearer, sessionCookieOf, signIn } from '../fixtures/auth';
import { followEvents } from '../fixtures/events';
import { expectedMisdirected, misdirectedHeadersOf } from '../fixtures/misdirected';
import { mutate, query } from '../fixtures/trpc';
import { CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD, CLUSTER_SECRET, startTestCluster, type TestCluster } from './harness';

// DESIGN §11's move in a real cluster: Postgres' user_shard, HAProxy with the map sync, two
// instances, and the operator's `cluster move` with only OPENPROGRAM_CLUSTER_DB. Every request of
// the user goes through HAProxy, as a browser's or an agent's would.
test.describe.configure({ mode: 'serial' });

const INSTANCE = 'x-entity-memory-instance';
const EMAIL = 'moving@cluster.test';
const PASSWORD = 'moving-user-password';

let cluster: TestCluster;
let admin: APIRequestContext;
let user: { id: string; token: string; api: APIRequestContext };
let moverDir: string;

async function pgQuery<T>(sql: string, params: unknown[] = []): Promise<T[]> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: cluster.postgres.url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

async function shardOf(userId: string): Promise<{ shard: string; epoch: number; state: string }> {
  const [row] = await pgQuery<{ shard: string; epoch: string; state: string }>('SELECT shard, epoch, state FROM user_shard WHERE user_id = $1', [userId]);
  return { shard: row!.shard, epoch: Number(row!.epoch), state: row!.state };
}

function otherInstance(id: string): string {
  return [...cluster.instances.keys()].find((candidate) => candidate !== id)!;
}

/** `cluster move` as an operator runs it: OPENPROGRAM_CLUSTER_DB and the secret, JSON lines read as they come. */
function runMover(args: string[], onLine?: (line: Record<string, unknown>) => void): Promise<{ code: number | null; lines: Record<string, unknown>[]; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENPROGRAM_CLUSTER_DB: cluster.postgres.url, OPENPROGRAM_CLUSTER_SECRET: CLUSTER_SECRET };
  delete env['OPENPROGRAM_CLUSTER_DIRECTORY'];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['cli/bin.mjs', 'cluster', 'move', ...args, '--json', '--data', moverDir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffer.slice(0, end)) as Record<string, unknown>;
        buffer = buffer.slice(end + 1);
        lines.push(line);
        onLine?.(line);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, lines, stderr }));
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One appender per session through HAProxy with the user's token, each message with an id of its
 * own, until stopped. Like a careful client it sends a refused write again: 503 (frozen: after
 * its Retry-After, shortened here), 421 (HAProxy's map not yet following the flip).
 */
function appendLoad(sessionIds: string[]) {
  let stopped = false;
  const acked = new Map<string, string[]>(sessionIds.map((id) => [id, []]));
  const refusals = { frozen: 0, retryAfter: new Set<string>(), misdirected: 0 };
  const writer = async (sessionId: string, w: number): Promise<void> => {
    for (let i = 0; !stopped; i++) {
      const id = `w${w}-${i}`;
      for (;;) {
        const response = await fetch(`${cluster.url}/api/trpc/message.append`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(user.token) },
          body: JSON.stringify({ sessionId, message: { id, role: 'user', content: `append ${id}` } }),
        }).catch(() => null);
        if (response?.status === 200) {
          acked.get(sessionId)!.push(id);
          break;
        }
        if (response?.status === 503 && response.headers.get('retry-after')) {
          refusals.frozen++;
          refusals.retryAfter.add(response.headers.get('retry-after')!);
        } else if (response?.status === 421) {
          refusals.misdirected++;
        } else if (response) {
          throw new Error(`append ${id} answered ${response.status}: ${await response.text()}`);
        }
        await pause(100);
      }
    }
  };
  const running = Promise.all(sessionIds.map((sessionId, w) => writer(sessionId, w)));
  return {
    acked,
    total: () => [...acked.values()].reduce((sum, ids) => sum + ids.length, 0),
    refusals,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

async function throughHaproxy<T>(path: string, input: unknown): Promise<{ status: number; data: T; instance: string | null }> {
  const response = await fetch(`${cluster.url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: bearer(user.token) });
  const body = (await response.json()) as { result?: { data: T } };
  return { status: response.status, data: body.result?.data as T, instance: response.headers.get(INSTANCE) };
}

async function messageIds(sessionId: string): Promise<string[]> {
  const answer = await throughHaproxy<{ id: string }[]>('message.branch', { sessionId });
  expect(answer.status).toBe(200);
  return answer.data.map((message) => message.id);
}

async function createSession(title: string): Promise<string> {
  const response = await fetch(`${cluster.url}/api/trpc/session.create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.token) },
    body: JSON.stringify({ title }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { id: string } } }).result.data.id;
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  cluster = await startTestCluster({ instances: 2 });
  moverDir = join(process.env.E2E_SCRATCH_DIR ?? '/tmp', `cluster-mover-${process.pid}`);
  mkdirSync(moverDir, { recursive: true });
  admin = await request.newContext({ baseURL: cluster.url, extraHTTPHeaders: { origin: cluster.url }, timeout: 60_000 });
  expect(sessionCookieOf(await signIn(admin, CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD))).toBeTruthy();
  const created = await mutate<{ id: string }>(admin, 'admin.createUser', { email: EMAIL, password: PASSWORD });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  // The user signs in through HAProxy (the route cookie follows) and makes the agent's token there.
  const api = await request.newContext({ baseURL: cluster.url, extraHTTPHeaders: { origin: cluster.url }, timeout: 60_000 });
  expect(sessionCookieOf(await signIn(api, EMAIL, PASSWORD)), 'sign-in through HAProxy').toBeTruthy();
  const token = await mutate<{ token: string }>(api, 'token.create', { name: 'moving agent' });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  user = { id: created.data.id, token: token.data.token, api };
});

test.afterAll(async () => {
  await user?.api.dispose();
  await admin?.dispose();
  await cluster?.stop();
});

test('cluster move with OPENPROGRAM_CLUSTER_DB under append load and an open stream: 0 acknowledged writes lost, HAProxy follows the flip', async () => {
  test.setTimeout(240_000);
  const before = await shardOf(user.id);
  const source = before.shard;
  const target = otherInstance(source);
  const sessionIds = [await createSession('moved under load 1'), await createSession('moved under load 2')];
  const stream = followEvents(bearer(user.token), cluster.url);
  await expect.poll(() => stream.connections.length, { timeout: 15_000 }).toBeGreaterThan(0);
  expect(stream.connections[0]!.instance).toBe(source);
  const load = appendLoad(sessionIds);
  await expect.poll(() => load.total(), { timeout: 30_000 }).toBeGreaterThan(20);

  // By email: the CLI finds the user in Postgres, not in its own data directory.
  const move = await runMover([EMAIL, target]);
  expect(move.stderr).toBe('');
  expect(move.code).toBe(0);
  expect(move.lines.filter((line) => line['phase'] === 'done').map((line) => line['step'])).toEqual([...MOVE_STEPS]);
  const result = move.lines.at(-1)!['result'] as { status: string; freezeMs: number; from: string; to: string };
  expect(result).toMatchObject({ status: 'done', from: source, to: target });
  expect(result.freezeMs).toBeGreaterThan(0);

  // user_shard names the new owner at a higher epoch, and HAProxy sends the user there.
  expect(await shardOf(user.id)).toEqual({ shard: target, epoch: before.epoch + 1, state: 'active' });
  await expect.poll(async () => (await throughHaproxy('session.list', {})).instance, { timeout: 15_000 }).toBe(target);
  const atMove = load.total();
  await expect.poll(() => load.total(), { timeout: 30_000 }).toBeGreaterThan(atMove + 20);
  await load.stop();

  // During the freeze writes were refused with Retry-After, and sent again by the client.
  expect(load.refusals.frozen).toBeGreaterThan(0);
  expect([...load.refusals.retryAfter]).toEqual(['2']);

  // Every acknowledged append is readable through HAProxy, from the new owner.
  for (const sessionId of sessionIds) {
    const stored = new Set(await messageIds(sessionId));
    expect(load.acked.get(sessionId)!.filter((id) => !stored.has(id)), `lost appends of ${sessionId}`).toEqual([]);
  }
  const listed = await throughHaproxy<{ rows: { id: string }[] }>('session.list', {});
  expect(listed.instance).toBe(target);
  expect(listed.data.rows.map((row) => row.id).sort()).toEqual([...sessionIds].sort());
  expect(existsSync(join(cluster.instances.get(source)!.dataDir, 'users', user.id))).toBe(false);

  // The stream was ended by the freeze, reconnected through HAProxy with Last-Event-ID, and on the
  // new owner saw every acknowledged append (those made while it was away included), no resync.
  const seen = () => new Set(stream.events.filter((event) => event.type === 'message_appended').map((event) => (event.data as { message: { id: string } }).message.id));
  const acked = [...load.acked.values()].flat();
  await expect.poll(() => acked.filter((id) => !seen().has(id)).length, { timeout: 20_000 }).toBe(0);
  await stream.stop();
  expect(stream.events.some((event) => event.type === 'reconnect')).toBe(true);
  expect(stream.events.some((event) => event.type === 'resync')).toBe(false);
  const onTarget = stream.connections.find((connection) => connection.instance === target);
  expect(onTarget?.lastEventId).toMatch(/-\d+$/);

  // The old owner, asked directly, names the new one.
  const direct = await fetch(`${cluster.instances.get(source)!.url}/api/trpc/session.list`, { headers: bearer(user.token) });
  const misdirected = expectedMisdirected({ instance: target, url: cluster.instances.get(target)!.url, epoch: before.epoch + 1 });
  expect(direct.status).toBe(421);
  expect(misdirectedHeadersOf(direct.headers)).toEqual(misdirected.headers);
  expect(await direct.json()).toEqual(misdirected.body);
});

test('the source SIGKILLed in the middle of a move, restarted, then --resume: the user ends complete on one instance', async () => {
  test.setTimeout(300_000);
  const before = await shardOf(user.id);
  const source = before.shard;
  const target = otherInstance(source);
  const listed = await throughHaproxy<{ rows: { id: string }[] }>('session.list', {});
  const sessionIds = listed.data.rows.map((row) => row.id).sort();
  const messages = new Map<string, string[]>();
  for (const sessionId of sessionIds) messages.set(sessionId, await messageIds(sessionId));

  // Killed once the pre-copy is done: the mover's freeze finds no source and the move stops.
  let killing: Promise<void> | null = null;
  const cut = await runMover([user.id, target], (line) => {
    if (line['step'] === 'precopy' && line['phase'] === 'done' && !killing) killing = cluster.kill(source);
  });
  expect(killing, 'the source was killed after the pre-copy').not.toBeNull();
  await killing;
  expect(cut.code).not.toBe(0);
  expect(cut.stderr).toMatch(/--resume (\S+)/);
  const moveId = /--resume (\S+)`/.exec(cut.stderr)![1]!;
  // Where the move stopped depends on how far the mover got before the kill landed: not flipped
  // yet (most often), or flipped with the source's release left to do. Never anything between.
  const stopped = await shardOf(user.id);
  expect([`${source} ${before.epoch}`, `${target} ${before.epoch + 1}`]).toContain(`${stopped.shard} ${stopped.epoch}`);

  await cluster.restart(source);
  const resumed = await runMover(['--resume', moveId]);
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  expect((resumed.lines.at(-1)!['result'] as { status: string }).status).toBe('done');

  // On the target alone, every session and message there, through HAProxy; the source emptied.
  expect(await shardOf(user.id)).toEqual({ shard: target, epoch: before.epoch + 1, state: 'active' });
  await expect.poll(async () => (await throughHaproxy('session.list', {})).instance, { timeout: 15_000 }).toBe(target);
  const after = await throughHaproxy<{ rows: { id: string }[] }>('session.list', {});
  expect(after.data.rows.map((row) => row.id).sort()).toEqual(sessionIds);
  for (const sessionId of sessionIds) expect(await messageIds(sessionId)).toEqual(messages.get(sessionId));
  expect(existsSync(join(cluster.instances.get(source)!.dataDir, 'users', user.id))).toBe(false);
  expect(existsSync(join(cluster.instances.get(target)!.dataDir, 'users', user.id))).toBe(true);
  // Writable where it lives now.
  const written = await fetch(`${cluster.url}/api/trpc/message.append`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(user.token) },
    body: JSON.stringify({ sessionId: sessionIds[0], message: { id: 'after-the-kill', role: 'user', content: 'written after the source was killed' } }),
  });
  expect(written.status).toBe(200);
});

test("the Admin page's mover, in cluster mode, flips user_shard in Postgres and HAProxy follows", async () => {
  test.setTimeout(120_000);
  const before = await shardOf(user.id);
  const target = otherInstance(before.shard);
  const overview = await query<{ enabled: boolean; instances: { id: string }[]; owners: Record<string, { shard: string; epoch: number } | null> }>(admin, 'clusterMove.overview');
  expect(overview.status, JSON.stringify(overview.body)).toBe(200);
  expect(overview.data.enabled).toBe(true);
  expect(overview.data.instances.map((instance) => instance.id).sort()).toEqual([...cluster.instances.keys()].sort());
  expect(overview.data.owners[user.id]).toMatchObject({ shard: before.shard, epoch: before.epoch });

  // An instance Postgres does not know is refused with a reason, not a 500.
  const unknown = await mutate(admin, 'clusterMove.start', { userId: user.id, to: 'node-z' });
  expect(unknown.status).toBe(400);
  expect(unknown.body.error!.message).toMatch(/no instance node-z/);

  const started = await mutate<{ id: string }>(admin, 'clusterMove.start', { userId: user.id, to: target });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  await expect
    .poll(async () => (await query<{ status: string; error?: string }>(admin, 'clusterMove.get', { moveId: started.data.id })).data, { timeout: 60_000 })
    .toMatchObject({ status: 'done' });
  expect(await shardOf(user.id)).toEqual({ shard: target, epoch: before.epoch + 1, state: 'active' });
  await expect.poll(async () => (await throughHaproxy('session.list', {})).instance, { timeout: 15_000 }).toBe(target);
  expect((await throughHaproxy('session.list', {})).status).toBe(200);
});
