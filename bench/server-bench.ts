/**
 * Figures of the real server (DESIGN §9): the built app as `npm start` runs it, on loopback, a fresh
 * data directory, tokens made with lib/auth before it starts. Needs `npm run build` first.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { benchRequest, openEventStream } from './http-client.js';
import { scratchDir } from './scratch.js';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServer as startAppServer } from '../e2e/fixtures/server-process.js';
import { AuthStore } from '../lib/auth/index.js';
import { p99, round, writeLargeIndex } from './store-bench.js';
import { requireBuild } from './figures.js';

const PORT = Number(process.env['BENCH_PORT'] ?? 3199);
export const BASE = `http://127.0.0.1:${PORT}`;
const FANOUT_STREAMS = 2_000;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });

interface Client {
  token: string;
  userId: string;
}

function request(method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<{ status: number; body: string }> {
  return benchRequest(BASE, agent, method, path, token, body);
}

async function call(token: string, procedure: string, input: unknown, kind: 'query' | 'mutation'): Promise<unknown> {
  const answer =
    kind === 'query'
      ? await request('GET', `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, token)
      : await request('POST', `/api/trpc/${procedure}`, token, input);
  if (answer.status !== 200) throw new Error(`${procedure}: ${answer.status} ${answer.body.slice(0, 200)}`);
  return (JSON.parse(answer.body) as { result: { data: unknown } }).result.data;
}

/** RSS of a process and its descendants, from /proc. */
export function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // gone
    }
  }
  let kb = 0;
  const visit = (current: number): void => {
    try {
      const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${current}/status`, 'utf8'));
      kb += Number(match?.[1] ?? 0);
    } catch {
      // gone
    }
    for (const child of children.get(current) ?? []) visit(child);
  };
  visit(pid);
  return kb / 1024;
}

/**
 * The built app on BENCH_PORT over that data directory, on Node and loopback, with the per-user
 * stream cap raised for the fan-out (and `env` on top); resolves once /api/health answers.
 */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const server = startAppServer({ port: PORT, host: '127.0.0.1', dataDir, runtime: 'node', env: { OPENPROGRAM_MAX_STREAMS_PER_USER: String(FANOUT_STREAMS), ...env } });
  try {
    await server.ready();
  } catch (error) {
    server.child.kill('SIGKILL');
    throw error;
  }
  return server.child;
}

function openStream(token: string, onEvent: (type: string, at: number) => void): Promise<http.ClientRequest> {
  return openEventStream(BASE, token, onEvent);
}

export async function benchServer(): Promise<Record<string, number>> {
  requireBuild('the server figures');
  const dataDir = scratchDir('em-bench-server-');
  let server: ChildProcess | null = null;
  const streams: http.ClientRequest[] = [];
  try {
    // 21 users with a token each; the first one owns 100,000 sessions.
    const auth = new AuthStore(join(dataDir, 'auth'));
    const clients: Client[] = [];
    for (let i = 0; i < 21; i++) {
      const user = await auth.users.create({ email: `bench${i}@bench.test`, password: 'bench password long', admin: i === 0 });
      clients.push({ userId: user.id, token: (await auth.tokens.create(user.id, { name: 'bench' })).token });
    }
    auth.flushSync();
    const big = clients[0]!;
    writeLargeIndex(join(dataDir, 'users', big.userId), 100_000);
    mkdirSync(join(dataDir, 'workspaces', big.userId), { recursive: true });

    server = await startServer(dataDir);
    await call(big.token, 'session.list', { limit: 50 }, 'query'); // opens the 100,000-session store
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rssMb = treeRssMb(server.pid!);

    // 20 concurrent clients listing the big user's sessions; each warms up before it is timed
    // (the first requests under concurrency pay for V8 optimising the hot paths).
    const list: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = 0; i < 150; i++) {
          const start = performance.now();
          await call(big.token, 'session.list', { limit: 50 }, 'query');
          if (i >= 50) list.push(performance.now() - start);
        }
      }),
    );

    // The same, while another client renames the big user's sessions one after another: every
    // rename is a registry write on the store the lists read.
    const renamed = Array.from({ length: 10 }, (_, i) => `bench-rename-${i}`);
    for (const id of renamed) await call(big.token, 'session.create', { id }, 'mutation');
    let renaming = true;
    let renames = 0;
    const renamer = (async () => {
      while (renaming) await call(big.token, 'session.update', { id: renamed[renames % renamed.length], title: `Renamed ${renames++}` }, 'mutation');
    })();
    const listWhileWriting: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = 0; i < 100; i++) {
          const start = performance.now();
          await call(big.token, 'session.list', { limit: 50 }, 'query');
          if (i >= 20) listWhileWriting.push(performance.now() - start);
        }
      }),
    );
    renaming = false;
    await renamer;
    if (renames < 10) throw new Error(`only ${renames} renames ran during the lists`);

    // 20 concurrent clients appending, each to its own session.
    const append: number[] = [];
    await Promise.all(
      clients.slice(1, 21).map(async (client, index) => {
        const id = `bench-append-${index}`;
        await call(client.token, 'session.create', { id }, 'mutation');
        for (let i = 0; i < 150; i++) {
          const start = performance.now();
          await call(client.token, 'message.append', { sessionId: id, message: { role: i % 2 ? 'assistant' : 'user', content: `message ${i}` } }, 'mutation');
          if (i >= 50) append.push(performance.now() - start);
        }
      }),
    );

    // One user's change to 2,000 open streams (the per-user cap raised for this server): the time
    // from the request that makes the event to its arrival on each stream, over 10 events.
    const fan = clients[1]!;
    await call(fan.token, 'session.create', { id: 'fanout' }, 'mutation');
    let sentAt = 0;
    const fanout: number[] = [];
    for (let s = 0; s < FANOUT_STREAMS; s++) {
      streams.push(
        await openStream(fan.token, (type, at) => {
          if (type === 'session_updated' && sentAt > 0) fanout.push(at - sentAt);
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (let round = 0; round < 10; round++) {
      const expected = fanout.length + FANOUT_STREAMS;
      sentAt = performance.now();
      await call(fan.token, 'session.update', { id: 'fanout', pinned: round % 2 === 0 }, 'mutation');
      const deadline = Date.now() + 10_000;
      while (fanout.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      if (fanout.length < expected) throw new Error(`round ${round}: only ${fanout.length - expected + FANOUT_STREAMS} of ${FANOUT_STREAMS} streams got the event`);
      sentAt = 0;
    }

    return {
      http_list_p99_ms: p99(list),
      http_list_p99_ms_100k_writes: p99(listWhileWriting),
      http_append_p99_ms: p99(append),
      fanout_p99_ms: p99(fanout),
      rss_mb_100k: round(rssMb),
    };
  } finally {
    for (const stream of streams) stream.destroy();
    agent.destroy();
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
  }
}
