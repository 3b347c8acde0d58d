/**
 * Issue 22's figures (DESIGN §9, §11):
 * - cluster_http_list_p99_ms: `session.list` through HAProxy (the shipped config, the map sync) to
 *   two instances in cluster mode on Postgres, 20 concurrent clients of four users spread over
 *   both instances; e2e/cluster/harness.ts starts the same cluster the cluster tests use.
 * - rss_mb_100_users: one instance (no cluster) serving 100 users of 1,000 sessions each, every
 *   user's store opened by a list; the server's RSS, render workers included.
 * Both need `npm run build`; the cluster figure also Debian's postgresql and haproxy.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request, type APIRequestContext } from '@playwright/test';
import { AuthStore } from '../lib/auth/index.js';
import { CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD, startTestCluster } from '../e2e/cluster/harness.js';
import { signIn, sessionCookieOf } from '../e2e/fixtures/auth.js';
import { mutate } from '../e2e/fixtures/trpc.js';
import { benchRequest } from './http-client.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer, treeRssMb } from './server-bench.js';
import { p50, p99, round, writeLargeIndex } from './store-bench.js';
import { requireBuild, UnmeasuredFigureError } from './figures.js';

const CLIENTS = 20;
const CLUSTER_USERS = 4;
const SESSIONS_PER_CLUSTER_USER = 200;


async function listOk(base: string, agent: http.Agent, token: string): Promise<void> {
  const answer = await benchRequest(base, agent, 'GET', `/api/trpc/session.list?input=${encodeURIComponent(JSON.stringify({ limit: 50 }))}`, token);
  if (answer.status !== 200) throw new Error(`session.list: ${answer.status} ${answer.body.slice(0, 200)}`);
}

/** `perClient` timed lists by each of CLIENTS concurrent clients after `warmup` untimed ones, the users taken in turn. */
async function concurrentLists(base: string, tokens: string[], warmup: number, perClient: number): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
  const times: number[] = [];
  try {
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = 0; i < warmup + perClient; i++) {
          const start = performance.now();
          await listOk(base, agent, tokens[(client + i * CLIENTS) % tokens.length]!);
          if (i >= warmup) times.push(performance.now() - start);
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return times;
}

async function signedIn(base: string, email: string, password: string): Promise<APIRequestContext> {
  const api = await request.newContext({ baseURL: base, extraHTTPHeaders: { origin: base }, timeout: 90_000 });
  if (!sessionCookieOf(await signIn(api, email, password))) throw new Error(`sign-in of ${email} through HAProxy failed`);
  return api;
}

export async function benchCluster(): Promise<Record<string, number>> {
  requireBuild('the cluster figures');
  if (spawnSync('sh', ['-c', 'command -v haproxy && ls /usr/lib/postgresql/*/bin/initdb'], { stdio: 'ignore' }).status !== 0) {
    throw new UnmeasuredFigureError('the cluster figures', 'they need postgresql and haproxy (node scripts/ensure-cluster-tools.mjs)');
  }
  const cluster = await startTestCluster({ instances: 2 });
  const contexts: APIRequestContext[] = [];
  try {
    const admin = await signedIn(cluster.url, CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD);
    contexts.push(admin);
    const tokens: string[] = [];
    const owners = new Set<string>();
    for (let u = 0; u < CLUSTER_USERS; u++) {
      const email = `bench${u}@cluster.test`;
      const password = `bench-password-${u}-long`;
      const created = await mutate<{ id: string }>(admin, 'admin.createUser', { email, password });
      if (created.status !== 200) throw new Error(`admin.createUser: ${JSON.stringify(created.body)}`);
      const api = await signedIn(cluster.url, email, password);
      contexts.push(api);
      const token = await mutate<{ token: string }>(api, 'token.create', { name: 'bench' });
      if (token.status !== 200) throw new Error(`token.create: ${JSON.stringify(token.body)}`);
      tokens.push(token.data.token);
      for (let s = 0; s < SESSIONS_PER_CLUSTER_USER; s++) {
        const made = await mutate(api, 'session.create', { title: `Session ${s} of user ${u}` });
        if (made.status !== 200) throw new Error(`session.create: ${JSON.stringify(made.body)}`);
        owners.add(made.response.headers()['x-entity-memory-instance'] ?? '?');
      }
    }
    if (owners.size < 2) process.stderr.write(`bench: cluster users all landed on ${[...owners].join(', ')}\n`);
    const times = await concurrentLists(cluster.url, tokens, 50, 150);
    return { cluster_http_list_p99_ms: p99(times), cluster_http_list_p50_ms: p50(times) };
  } finally {
    for (const api of contexts) await api.dispose();
    await cluster.stop();
  }
}

export async function benchManyUsers(): Promise<Record<string, number>> {
  requireBuild('the many-users figures');
  const dataDir = scratchDir('em-bench-users-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const tokens: string[] = [];
  for (let u = 0; u < 100; u++) {
    const user = await auth.users.create({ email: `user${u}@bench.test`, password: 'bench password long', admin: u === 0 });
    tokens.push((await auth.tokens.create(user.id, { name: 'bench' })).token);
    writeLargeIndex(join(dataDir, 'users', user.id), 1_000);
    mkdirSync(join(dataDir, 'workspaces', user.id), { recursive: true });
  }
  auth.flushSync();
  let server: ChildProcess | null = null;
  try {
    server = await startServer(dataDir);
    const agent = new http.Agent({ keepAlive: true });
    try {
      for (const token of tokens) await listOk(BASE, agent, token); // opens each user's store
    } finally {
      agent.destroy();
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssMb = treeRssMb(server.pid!);
    // Every user listing at once, spread over the 20 clients.
    const times = await concurrentLists(BASE, tokens, 10, 50);
    return { rss_mb_100_users: round(rssMb), http_list_p99_ms_100_users: p99(times) };
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
  }
}
