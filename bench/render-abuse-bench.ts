/**
 * Another user's `session.list` over HTTP while one user has the server render the worst
 * messages of issue 23 (a 10 KB C++ block of spaces, 40 KB of brackets, a 300-level nested list,
 * 3,000 nested quotes): its p99, target ≤ 100 ms. The built app as `npm start` runs it; the
 * hostile user opens session pages by cookie, as a browser does, each page new texts, so no render
 * comes from the cache. Needs `npm run build`.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { SessionStore } from '../lib/store/index.js';
import { hostileMessages } from '../e2e/fixtures/hostile-messages.js';
import { benchRequest } from './http-client.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer } from './server-bench.js';
import { p99 } from './store-bench.js';
import { requireBuild } from './figures.js';

const PASSWORD = 'bench password long';
const HOSTILE_PAGES = 6;
/** pages the hostile user loads at once */
const HOSTILE_CONCURRENCY = 2;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

interface Answer {
  status: number;
  cookies: string[];
  body: string;
}

function send(method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${BASE}${path}`, { method, agent, headers: { ...headers, ...(body ? { 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, cookies: (res.headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0]!), body: text }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

/** next-auth's credentials flow; answers the Cookie header of the signed-in browser. */
async function signIn(email: string): Promise<string> {
  const csrf = await send('GET', '/api/auth/csrf', {});
  const { csrfToken } = JSON.parse(csrf.body) as { csrfToken: string };
  const form = new URLSearchParams({ email, password: PASSWORD, csrfToken }).toString();
  const signedIn = await send('POST', '/api/auth/callback/credentials', { cookie: csrf.cookies.join('; '), 'content-type': 'application/x-www-form-urlencoded', origin: BASE }, form);
  const cookie = [...csrf.cookies, ...signedIn.cookies].join('; ');
  if (!/session-token=/.test(cookie)) throw new Error(`sign-in failed: ${signedIn.status}`);
  return cookie;
}

async function openStore(dataDir: string, userId: string): Promise<SessionStore> {
  const workspaceRoot = join(dataDir, 'workspaces', userId);
  mkdirSync(workspaceRoot, { recursive: true });
  return SessionStore.open({ stateDir: join(dataDir, 'users', userId), workspaceRoot });
}

export async function benchRenderAbuse(): Promise<Record<string, number>> {
  requireBuild('the render abuse figures');
  const dataDir = scratchDir('em-bench-render-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const mallory = await auth.users.create({ email: 'mallory@bench.test', password: PASSWORD, admin: false });
  const alice = await auth.users.create({ email: 'alice@bench.test', password: PASSWORD, admin: true });
  const aliceToken = (await auth.tokens.create(alice.id, { name: 'bench' })).token;
  auth.flushSync();

  const hostile = await openStore(dataDir, mallory.id);
  for (let page = 0; page < HOSTILE_PAGES; page++) {
    await hostile.createSession({ id: `hostile-${page}`, title: `Hostile ${page}` });
    for (const content of Object.values(hostileMessages(`page ${page}`))) await hostile.appendMessage(`hostile-${page}`, { role: 'user', content });
  }
  await hostile.close();
  const own = await openStore(dataDir, alice.id);
  for (let n = 0; n < 20; n++) await own.createSession({ id: `alice-${n}`, title: `Alice ${n}` });
  await own.close();

  let server: ChildProcess | null = null;
  try {
    server = await startServer(dataDir);
    const cookie = await signIn('mallory@bench.test');
    const list = async (): Promise<number> => {
      const start = performance.now();
      const answer = await benchRequest(BASE, agent, 'GET', `/api/trpc/session.list?input=${encodeURIComponent(JSON.stringify({ limit: 50 }))}`, aliceToken);
      if (answer.status !== 200) throw new Error(`session.list: ${answer.status}`);
      return performance.now() - start;
    };
    for (let n = 0; n < 20; n++) await list();
    // The render workers start with the first page: not timed.
    const warm = await send('GET', '/sessions/hostile-0', { cookie, accept: 'text/html' });
    if (warm.status !== 200) throw new Error(`/sessions/hostile-0: ${warm.status}`);

    let rendering = true;
    const pages = Array.from({ length: HOSTILE_PAGES - 1 }, (_, n) => `/sessions/hostile-${n + 1}`);
    const hostileUser = Promise.all(
      Array.from({ length: HOSTILE_CONCURRENCY }, async () => {
        for (let path = pages.shift(); path; path = pages.shift()) {
          const answer = await send('GET', path, { cookie, accept: 'text/html' });
          if (answer.status !== 200) throw new Error(`${path}: ${answer.status}`);
        }
      }),
    ).finally(() => (rendering = false));
    const latencies: number[] = [];
    while (rendering) latencies.push(await list());
    await hostileUser;
    return { render_abuse_list_p99_ms: p99(latencies) };
  } finally {
    agent.destroy();
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
  }
}
