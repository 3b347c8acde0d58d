import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, request, test } from '@playwright/test';
import { FileShardDirectory, MOVE_STEPS } from '../../lib/cluster/move/index';
import { createToken, signIn } from '../fixtures/auth';
import { followEvents, openEvents } from '../fixtures/events';
import { freshDataDir, startServer, startServerSignedIn, type ServerProcess } from '../fixtures/server-process';
import { AdminMovesPage } from '../pages/admin-moves';

/**
 * Two real instances of the built app (ports 5200/5201, their own data directories), one user
 * moved between them by the real CLI while two writers append and an event stream is open.
 * Postgres would hold the users; here both instances start from the same users.json/tokens.json.
 */
const PORTS = { a: 5200, b: 5201 } as const;
const EMAIL = 'mover@e2e.test';
const PASSWORD = 'mover-password-e2e';
const CLUSTER_SECRET = 'cluster-secret-for-the-move-e2e';

test.describe.configure({ mode: 'serial' });

interface Cluster {
  a: ServerProcess;
  b: ServerProcess;
  dataDirs: { a: string; b: string };
  moverDir: string;
  directoryFile: string;
  directory: FileShardDirectory;
  userId: string;
  token: string;
  /** a second, non-admin user the Admin page moves */
  other: { id: string; email: string };
}

const baseEnv = (id: string, directoryFile: string) => ({
  NEXTAUTH_SECRET: 'the-same-secret-on-every-instance-0123456789',
  OPENPROGRAM_CLUSTER_SECRET: CLUSTER_SECRET,
  OPENPROGRAM_INSTANCE_ID: id,
  // Each instance can also be the mover (its Admin page).
  OPENPROGRAM_CLUSTER_DIRECTORY: directoryFile,
});

async function startCluster(): Promise<Cluster> {
  const root = freshDataDir();
  const dataDirs = { a: join(root, 'a'), b: join(root, 'b') };
  const moverDir = join(root, 'mover');
  for (const dir of [...Object.values(dataDirs), moverDir]) mkdirSync(dir, { recursive: true });
  const directoryFile = join(root, 'directory.json');
  // The user and their token come to be on a, then both instances share them (as Postgres would).
  const { server: first, api } = await startServerSignedIn({ port: PORTS.a, dataDir: dataDirs.a, admin: { email: EMAIL, password: PASSWORD }, env: baseEnv('a', directoryFile) });
  const { token } = await createToken(api, 'mover-e2e');
  const me = await api.get('/api/trpc/user.me');
  const userId = ((await me.json()) as { result: { data: { id: string } } }).result.data.id;
  const otherEmail = 'moved-by-admin@e2e.test';
  const other = await api.post('/api/trpc/admin.createUser', { headers: { 'content-type': 'application/json' }, data: JSON.stringify({ email: otherEmail, password: 'other-password-e2e' }) });
  const otherId = ((await other.json()) as { result: { data: { id: string } } }).result.data.id;
  await api.dispose();
  await first.stop();
  mkdirSync(join(dataDirs.b, 'auth'), { recursive: true, mode: 0o700 });
  for (const file of ['users.json', 'tokens.json']) copyFileSync(join(dataDirs.a, 'auth', file), join(dataDirs.b, 'auth', file));
  const a = startServer({ port: PORTS.a, dataDir: dataDirs.a, env: baseEnv('a', directoryFile) });
  const b = startServer({ port: PORTS.b, dataDir: dataDirs.b, env: baseEnv('b', directoryFile) });
  await Promise.all([a.ready(), b.ready()]);
  const directory = new FileShardDirectory(directoryFile);
  directory.addInstance('a', a.url);
  directory.addInstance('b', b.url);
  directory.place(userId, 'a');
  directory.place(otherId, 'a');
  return { a, b, dataDirs, moverDir, directoryFile, directory, userId, token, other: { id: otherId, email: otherEmail } };
}

/** The CLI's `cluster move`, its JSON lines read as they come; `killAt` SIGKILLs it as that step begins. */
function runMover(cluster: Cluster, args: string[], killAt?: string): Promise<{ code: number | null; killed: boolean; lines: Record<string, unknown>[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['cli/bin.mjs', 'cluster', 'move', ...args, '--json', '--data', cluster.moverDir], {
      env: { ...process.env, OPENPROGRAM_CLUSTER_SECRET: CLUSTER_SECRET, OPENPROGRAM_CLUSTER_DIRECTORY: cluster.directoryFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    let buffer = '';
    let stderr = '';
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffer.slice(0, end)) as Record<string, unknown>;
        buffer = buffer.slice(end + 1);
        lines.push(line);
        if (killAt && line['step'] === killAt && line['phase'] === 'start' && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, killed, lines, stderr }));
  });
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Appends with ids of their own until stopped, following 503 (Retry-After) and 421 (the owner) like a careful client. */
function appendLoad(cluster: Cluster, sessionId: string, writers: number) {
  let base = cluster.a.url;
  let stopped = false;
  const acked: string[] = [];
  const refusals = { frozen: 0, retryAfter: new Set<string>(), misdirected: 0 };
  const writer = async (w: number): Promise<void> => {
    for (let i = 0; !stopped; i++) {
      const id = `w${w}-${i}`;
      for (;;) {
        const response = await fetch(`${base}/api/trpc/message.append`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(cluster.token) },
          body: JSON.stringify({ sessionId, message: { id, role: 'user', content: `append ${id}` } }),
        }).catch(() => null);
        if (response?.status === 200) {
          acked.push(id);
          break;
        }
        if (response?.status === 503) {
          refusals.frozen++;
          refusals.retryAfter.add(response.headers.get('retry-after') ?? '');
        } else if (response?.status === 421) {
          refusals.misdirected++;
          base = response.headers.get('x-entity-memory-owner-url') ?? base;
          continue;
        } else if (response) throw new Error(`append ${id} answered ${response.status}: ${await response.text()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const running = Promise.all(Array.from({ length: writers }, (_, w) => writer(w)));
  return {
    acked,
    refusals,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

/** The user's stream from instance a; a 421 after the move names the owner to reconnect to (no HAProxy here). */
function followUserEvents(cluster: Cluster) {
  return followEvents(bearer(cluster.token), cluster.a.url, async (status, base) => {
    if (status !== 421) return base;
    const probe = await fetch(`${base}/api/trpc/user.me`, { headers: bearer(cluster.token) });
    return probe.headers.get('x-entity-memory-owner-url') ?? base;
  });
}

async function trpcGet<T>(url: string, token: string, path: string, input: unknown): Promise<{ status: number; data: T; headers: Headers }> {
  const response = await fetch(`${url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: bearer(token) });
  const body = (await response.json()) as { result?: { data: T } };
  return { status: response.status, data: body.result?.data as T, headers: response.headers };
}

async function branchIds(url: string, token: string, sessionId: string): Promise<string[]> {
  const answer = await trpcGet<{ id: string }[]>(url, token, 'message.branch', { sessionId });
  expect(answer.status).toBe(200);
  return answer.data.map((message) => message.id);
}

let cluster: Cluster;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  cluster = await startCluster();
});

test.afterAll(async () => {
  await Promise.all([cluster?.a.stop(), cluster?.b.stop()]);
});

test('a move under append load with an open event stream: no acknowledged write lost, the stream converges on the new owner', async () => {
  test.setTimeout(180_000);
  const created = await fetch(`${cluster.a.url}/api/trpc/session.create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(cluster.token) },
    body: JSON.stringify({ title: 'moved under load' }),
  });
  expect(created.status).toBe(200);
  const sessionId = ((await created.json()) as { result: { data: { id: string } } }).result.data.id;
  const stream = followUserEvents(cluster);
  const load = appendLoad(cluster, sessionId, 2);
  await expect.poll(() => load.acked.length, { timeout: 20_000 }).toBeGreaterThan(20);

  const move = await runMover(cluster, [cluster.userId, 'b']);
  expect(move.stderr).toBe('');
  expect(move.code).toBe(0);
  const result = move.lines.at(-1)!['result'] as { status: string; freezeMs: number };
  expect(result.status).toBe('done');
  expect(move.lines.filter((line) => line['phase'] === 'done').map((line) => line['step'])).toEqual([...MOVE_STEPS]);
  const ackedAtMove = load.acked.length;
  await expect.poll(() => load.acked.length, { timeout: 20_000 }).toBeGreaterThan(ackedAtMove + 20);
  await load.stop();

  // Writes were refused while frozen, with Retry-After, then sent to the new owner.
  expect(load.refusals.frozen).toBeGreaterThan(0);
  expect([...load.refusals.retryAfter]).toEqual(['2']);
  expect(load.refusals.misdirected).toBeGreaterThan(0);
  expect(await cluster.directory.owner(cluster.userId)).toEqual({ shard: 'b', epoch: 2, state: 'active' });

  // Every acknowledged append is on b; the user's data is gone from a.
  const onB = new Set(await branchIds(cluster.b.url, cluster.token, sessionId));
  expect(load.acked.filter((id) => !onB.has(id))).toEqual([]);
  expect(existsSync(join(cluster.dataDirs.a, 'users', cluster.userId))).toBe(false);

  // The stream: ended on a with a reconnect hint, resumed on b from its Last-Event-ID, and saw
  // every acknowledged append once, its ids one run of numbers without a gap or a repeat.
  const appendedIds = () => new Set(stream.events.filter((event) => event.type === 'message_appended').map((event) => (event.data as { message: { id: string } }).message.id));
  await expect.poll(() => load.acked.filter((id) => !appendedIds().has(id)).length, { timeout: 20_000 }).toBe(0);
  await stream.stop();
  expect(stream.events.some((event) => event.type === 'reconnect')).toBe(true);
  expect(stream.events.some((event) => event.type === 'resync')).toBe(false);
  const resumedOnB = stream.connections.find((connection) => connection.baseUrl === cluster.b.url);
  expect(resumedOnB?.lastEventId).toMatch(/-\d+$/);
  const numbers = stream.events.filter((event) => event.id).map((event) => Number(event.id!.split('-')[1]));
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i));

  // On a the user is now answered 421 with the owner, for queries and streams alike.
  const misdirected = await trpcGet(cluster.a.url, cluster.token, 'session.list', {});
  expect(misdirected.status).toBe(421);
  expect(misdirected.headers.get('x-entity-memory-owner')).toBe('b');
  expect((await openEvents(bearer(cluster.token), undefined, cluster.a.url)).status).toBe(421);
});

test('a SIGKILL of the mover as each step begins, then --resume: the user ends complete on the target alone', async () => {
  test.setTimeout(300_000);
  const listed = await trpcGet<{ rows: { id: string }[] }>(cluster.b.url, cluster.token, 'session.list', {});
  const sessionIds = listed.data.rows.map((row) => row.id).sort();
  const sessionId = sessionIds[0]!;
  const messages = await branchIds(cluster.b.url, cluster.token, sessionId);
  let from: 'a' | 'b' = 'b';
  for (const step of MOVE_STEPS) {
    const to: 'a' | 'b' = from === 'a' ? 'b' : 'a';
    const cut = await runMover(cluster, [cluster.userId, to], step);
    expect(cut.killed, `the mover reached ${step}`).toBe(true);
    const moveId = String(cut.lines[0]!['move']);
    const resumed = await runMover(cluster, ['--resume', moveId]);
    expect(resumed.stderr, `resume after a kill in ${step}`).toBe('');
    expect(resumed.code).toBe(0);
    const owner = await cluster.directory.owner(cluster.userId);
    expect(owner).toMatchObject({ shard: to, state: 'active' });
    const home = cluster[to].url;
    const rows = await trpcGet<{ rows: { id: string }[] }>(home, cluster.token, 'session.list', {});
    expect(rows.status).toBe(200);
    expect(rows.data.rows.map((row) => row.id).sort()).toEqual(sessionIds);
    expect(await branchIds(home, cluster.token, sessionId)).toEqual(messages);
    expect(existsSync(join(cluster.dataDirs[from], 'users', cluster.userId))).toBe(false);
    expect((await trpcGet(cluster[from].url, cluster.token, 'session.list', {})).status).toBe(421);
    // Writable where it lives now.
    const written = await fetch(`${home}/api/trpc/message.append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(cluster.token) },
      body: JSON.stringify({ sessionId, message: { id: `after-${step}`, role: 'user', content: `written after the kill in ${step}` } }),
    });
    expect(written.status).toBe(200);
    messages.push(`after-${step}`);
    from = to;
  }
});

test('the Admin page moves a user: a target per user, the progress, the result', async ({ browser }) => {
  test.setTimeout(120_000);
  const home = (await cluster.directory.owner(cluster.userId))!.shard as 'a' | 'b';
  const from = (await cluster.directory.owner(cluster.other.id))!.shard as 'a' | 'b';
  const to = from === 'a' ? 'b' : 'a';
  const api = await request.newContext({ baseURL: cluster[home].url, extraHTTPHeaders: { origin: cluster[home].url } });
  await signIn(api, EMAIL, PASSWORD);
  const shots = '/tmp/cluster-move-shots';
  mkdirSync(shots, { recursive: true });
  for (const [scheme, width] of [['light', 1280], ['dark', 390]] as const) {
    const context = await browser.newContext({ storageState: await api.storageState(), baseURL: cluster[home].url, colorScheme: scheme, viewport: { width, height: 900 } });
    const page = await context.newPage();
    // A page of its own per colour scheme and width, on the instance the admin lives on: not the fixture's.
    const admin = new AdminMovesPage(page);
    await admin.goto();
    await expect(admin.user(EMAIL)).toContainText('You: move yourself with entity-memory cluster move');
    const row = admin.user(cluster.other.email);
    await expect(row).toContainText(`On ${scheme === 'light' ? from : to}`);
    await page.screenshot({ path: `${shots}/admin-move-before-${scheme}-${width}.png`, fullPage: true });
    if (scheme === 'light') {
      await admin.move(cluster.other.email, to);
      await expect(admin.moveStatus(cluster.other.email)).toContainText(`Moved ${cluster.other.email} to ${to}`, { timeout: 60_000 });
      await expect(row).toContainText(`On ${to}`);
      await page.screenshot({ path: `${shots}/admin-move-after-${scheme}-${width}.png`, fullPage: true });
      expect(await cluster.directory.owner(cluster.other.id)).toEqual({ shard: to, epoch: 2, state: 'active' });
      expect(existsSync(join(cluster.dataDirs[from], 'users', cluster.other.id))).toBe(false);
    }
    await context.close();
  }
  await api.dispose();
});
