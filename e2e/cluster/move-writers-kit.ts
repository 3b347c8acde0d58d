import { spawn } from 'node:child_process';
import { expect, request, type APIRequestContext } from '@playwright/test';
import { bearer, sessionCookieOf, signIn } from '../fixtures/auth';
import { mutate } from '../fixtures/trpc';
import { CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD, CLUSTER_SECRET, type TestCluster } from './harness';

/** What the specs that move a user under write load share: the writers, the mover, the directory read. */

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The user's row in the cluster's directory (Postgres). */
export async function shardOf(cluster: TestCluster, userId: string): Promise<{ shard: string; epoch: number }> {
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

/** The CLI's `cluster move … --json` against the cluster's Postgres; `last` is its final JSON line. */
export function runMover(cluster: TestCluster, moverDir: string, args: string[]): Promise<{ code: number | null; stderr: string; last: Record<string, unknown> | null }> {
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

/** A two-line Claude Code transcript named for `id`: what the importer uploads. */
export const claudeCodeTranscript = (id: string) =>
  [
    { type: 'user', uuid: `${id}-1`, parentUuid: null, sessionId: id, timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: `imported ${id}` } },
    { type: 'assistant', uuid: `${id}-2`, parentUuid: `${id}-1`, sessionId: id, timestamp: '2026-11-20T10:00:01Z', message: { role: 'assistant', content: 'noted' } },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');

export interface Writer {
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
export function writer(name: string, write: (id: string) => Promise<Response>, between = 0): Writer {
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

/** A tRPC query through HAProxy with the user's token. */
export async function trpcQuery<T>(cluster: TestCluster, token: string, path: string, input: unknown): Promise<{ status: number; data: T }> {
  const response = await fetch(`${cluster.url}/api/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: bearer(token) });
  return { status: response.status, data: ((await response.json()) as { result?: { data: T } }).result?.data as T };
}

/** The importer: a Claude Code transcript uploaded after another. */
export function importWriter(cluster: TestCluster, token: string): Writer {
  return writer('imported', (id) => fetch(`${cluster.url}/api/import?name=${id}.jsonl`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/octet-stream' }, body: claudeCodeTranscript(id) }), 200);
}

/**
 * Chat turns one after another, each acknowledged once its streaming has ended (the freeze waits
 * for a running turn, and meanwhile refuses the others). `sessions`: the session of each write.
 */
export function chatWriter(cluster: TestCluster, token: string, prompt: (id: string) => string): Writer & { sessions: Map<string, string> } {
  const sessions = new Map<string, string>();
  const chat = writer('chat', async (id) => {
    const response = await fetch(`${cluster.url}/api/trpc/chat.send`, { method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify({ content: prompt(id) }) });
    if (response.status !== 200) return response;
    const sessionId = ((await response.clone().json()) as { result: { data: { sessionId: string } } }).result.data.sessionId;
    sessions.set(id, sessionId);
    for (;;) {
      const session = await trpcQuery<{ status: string }>(cluster, token, 'session.get', { id: sessionId });
      if (session.status === 200 && session.data.status !== 'running') return response;
      await pause(100);
    }
  });
  return Object.assign(chat, { sessions });
}

/**
 * The cluster's admin signed in (`admin`, kept for the spec), a new user made by them and signed
 * in (`api`: the caller disposes of it once its own set-up is done) with a token named `tokenName`.
 */
export async function adminAndTokenUser(cluster: TestCluster, person: { email: string; password: string }, tokenName: string) {
  const context = () => request.newContext({ baseURL: cluster.url, extraHTTPHeaders: { origin: cluster.url }, timeout: 60_000 });
  const admin: APIRequestContext = await context();
  expect(sessionCookieOf(await signIn(admin, CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD))).toBeTruthy();
  const created = await mutate<{ id: string }>(admin, 'admin.createUser', person);
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const api = await context();
  expect(sessionCookieOf(await signIn(api, person.email, person.password))).toBeTruthy();
  const token = await mutate<{ token: string }>(api, 'token.create', { name: tokenName });
  expect(token.status, JSON.stringify(token.body)).toBe(200);
  return { admin, api, user: { id: created.data.id, token: token.data.token } };
}
