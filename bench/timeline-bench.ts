/**
 * Issue 10's figures: the timeline page's first byte for a 2,000-turn session (the built server
 * over loopback, warm), and the at-turn read of a 10,000-node session (the store read that
 * timeline.at and the /at/<sha> page make: history tree, 10,000 blobs, the branch; warm process).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { SessionStore } from '../lib/store/index.js';
import { scratchDir } from './scratch.js';
import { startServer } from './server-bench.js';
import { p50, timeAsync } from './store-bench.js';
import { requireBuild } from './figures.js';

const PORT = Number(process.env['BENCH_PORT'] ?? 3199);

const BASE = `http://127.0.0.1:${PORT}`;

/** Pages take the next-auth cookie (a token is for the API): its credentials flow, as a browser signs in. */
export async function signInCookie(email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (response: Response): void => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const header = (): string => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const csrf = await fetch(`${BASE}/api/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signedIn = await fetch(`${BASE}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: header(), origin: BASE },
    body: new URLSearchParams({ email, password, csrfToken }).toString(),
  });
  keep(signedIn);
  if (![...jar.keys()].some((name) => name.endsWith('next-auth.session-token'))) throw new Error(`sign-in failed: ${signedIn.status}`);
  return header();
}

/** Milliseconds until the response's first byte (status line and headers) arrive. */
export function firstByte(path: string, cookie: string): Promise<{ ms: number; status: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const req = http.get(`${BASE}${path}`, { headers: { cookie } }, (res) => {
      const ms = performance.now() - start;
      res.resume();
      res.on('end', () => resolve({ ms, status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
  });
}

async function seedTurns(store: SessionStore, id: string, turns: number, pairsPerTurn: number): Promise<string> {
  await store.createSession({ id });
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(4);
  let last = '';
  for (let t = 0; t < turns; t++) {
    for (let p = 0; p < pairsPerTurn; p++) {
      await store.appendMessage(id, { role: 'user', content: `${t}.${p} ${text}` });
      await store.appendMessage(id, { role: 'assistant', content: `${t}.${p} ${text}` });
    }
    last = (await store.finalizeTurn(id)).sessionCommit ?? last;
  }
  return last;
}

export async function benchTimeline(): Promise<Record<string, number>> {
  const dataDir = scratchDir('em-bench-timeline-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: 'timeline@bench.test', password: 'bench password long', admin: true });
  auth.flushSync();
  const stateDir = join(dataDir, 'users', user.id);
  const workspaceRoot = join(dataDir, 'workspaces', user.id);
  mkdirSync(workspaceRoot, { recursive: true });

  const figures: Record<string, number> = {};
  const store = await SessionStore.open({ stateDir, workspaceRoot });
  let [, ms] = await timeAsync(() => seedTurns(store, 'turns-2000', 2_000, 1));
  process.stderr.write(`bench: 2,000 turns seeded in ${Math.round(ms)} ms\n`);
  // 10,000 nodes in 50 turns of 100 pairs.
  let sha = '';
  [sha, ms] = await timeAsync(() => seedTurns(store, 'nodes-10k', 50, 100));
  process.stderr.write(`bench: 10,000 nodes seeded in ${Math.round(ms)} ms\n`);
  await store.close();

  const reader = await SessionStore.open({ stateDir, workspaceRoot });
  const first = await reader.branchAt('nodes-10k', sha);
  if (first.messages.length !== 10_000) throw new Error(`at-turn read ${first.messages.length} messages`);
  const reads: number[] = [];
  for (let i = 0; i < 10; i++) reads.push((await timeAsync(() => reader.branchAt('nodes-10k', sha)))[1]);
  figures['at_turn_ms_10k'] = p50(reads);
  process.stderr.write(`bench: at_turn_ms_10k ${figures['at_turn_ms_10k']}\n`);
  await reader.close();

  requireBuild('the timeline page figure');
  let server: ChildProcess | null = null;
  try {
    server = await startServer(dataDir);
    const cookie = await signInCookie('timeline@bench.test', 'bench password long');
    const samples: number[] = [];
    for (let i = 0; i < 40; i++) {
      const { ms, status } = await firstByte('/sessions/turns-2000/timeline', cookie);
      if (status !== 200) throw new Error(`timeline page: ${status}`);
      if (i >= 10) samples.push(ms);
    }
    figures['timeline_ttfb_p50_ms_2000'] = p50(samples);
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
  }
  return figures;
}
