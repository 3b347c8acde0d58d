/**
 * Issue 23's figures for one user trying to stall or exhaust the server (the built server on
 * loopback, a fresh data directory):
 * - `rss_mb_after_abuse`: the server's memory after one user appends 200 messages of the largest
 *   size (1 MiB), tries 20 of 20 MB (refused, 413) and makes 3,000 more events, streams open,
 *   30 s after the last request; `rss_mb_abuse_peak`: the most seen while it went on;
 * - `graph_layout_ms_1000_forks`: `timeline.graph` of a session with 1,000 forks, laid out anew
 *   each time (the head moves between calls, so the cache never answers), over HTTP;
 * - `graph_other_list_p99_ms`: another user's `session.list` while those layouts run.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { SessionStore } from '../lib/store/index.js';
import { benchRequest, openEventStream } from './http-client.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer, treeRssMb } from './server-bench.js';
import { p50, p99 } from './store-bench.js';
import { requireBuild } from './figures.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const MAX_MESSAGE_BYTES = 1024 * 1024;
const FORKS = 1_000;

async function call(token: string, procedure: string, input: unknown, kind: 'query' | 'mutation', expected = 200): Promise<unknown> {
  const answer =
    kind === 'query'
      ? await benchRequest(BASE, agent, 'GET', `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, token)
      : await benchRequest(BASE, agent, 'POST', `/api/trpc/${procedure}`, token, input);
  if (answer.status !== expected) throw new Error(`${procedure}: ${answer.status} ${answer.body.slice(0, 200)}`);
  return expected === 200 ? (JSON.parse(answer.body) as { result: { data: unknown } }).result.data : null;
}

async function stop(server: ChildProcess | null): Promise<void> {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
  }
}

/** 1,000 questions, each with an answer that stays a tip, the next question forking off it. */
async function seedForks(stateDir: string, workspaceRoot: string, id: string): Promise<string[]> {
  const store = await SessionStore.open({ stateDir, workspaceRoot });
  await store.createSession({ id });
  const tips: string[] = [];
  let parent: string | null = null;
  for (let i = 0; i < FORKS; i++) {
    const question = await store.appendMessage(id, { role: 'user', content: `question ${i}`, parentId: parent });
    tips.push((await store.appendMessage(id, { role: 'assistant', content: `answer ${i}`, parentId: question.id })).id);
    parent = question.id;
    if (i % 100 === 99) await store.finalizeTurn(id);
  }
  await store.close();
  return tips;
}

export async function benchAbuse(): Promise<Record<string, number>> {
  requireBuild('the abuse figures');
  const dataDir = scratchDir('em-bench-abuse-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const users = [];
  for (const name of ['abuser', 'other']) {
    const user = await auth.users.create({ email: `${name}@bench.test`, password: 'bench password long', admin: name === 'abuser' });
    mkdirSync(join(dataDir, 'workspaces', user.id), { recursive: true });
    users.push({ id: user.id, token: (await auth.tokens.create(user.id, { name: 'bench' })).token });
  }
  auth.flushSync();
  const [abuser, other] = users as [(typeof users)[0], (typeof users)[0]];
  const tips = await seedForks(join(dataDir, 'users', abuser.id), join(dataDir, 'workspaces', abuser.id), 'forks');

  const figures: Record<string, number> = {};
  let server: ChildProcess | null = null;
  const streams: http.ClientRequest[] = [];
  try {
    server = await startServer(dataDir);
    process.stderr.write(`bench: abuse: server RSS ${Math.round(treeRssMb(server.pid!))} MB at start\n`);
    // The other user has a sidebar to list.
    for (let i = 0; i < 20; i++) await call(other.token, 'session.create', { id: `other-${i}` }, 'mutation');

    // The other user's list alone first, for comparison (stderr only: the machine's load moves it).
    const alone: number[] = [];
    for (let i = 0; i < 200; i++) {
      const start = performance.now();
      await call(other.token, 'session.list', { limit: 50 }, 'query');
      alone.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    process.stderr.write(`bench: abuse: another user's session.list p99 ${p99(alone)} ms with no graph laid out\n`);

    // The branch graph of 1,000 forks, laid out anew each call, while another user lists.
    await call(abuser.token, 'timeline.graph', { sessionId: 'forks' }, 'query'); // opens the session
    const layouts: number[] = [];
    const lists: number[] = [];
    let laying = true;
    const lister = (async () => {
      while (laying) {
        const start = performance.now();
        await call(other.token, 'session.list', { limit: 50 }, 'query');
        lists.push(performance.now() - start);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    for (let i = 0; i < 20; i++) {
      await call(abuser.token, 'branch.setHead', { sessionId: 'forks', headId: tips[(i * 37) % tips.length] }, 'mutation');
      const start = performance.now();
      const layout = (await call(abuser.token, 'timeline.graph', { sessionId: 'forks' }, 'query')) as { nodes: unknown[] };
      layouts.push(performance.now() - start);
      if (layout.nodes.length !== 2 * FORKS) throw new Error(`graph has ${layout.nodes.length} boxes`);
    }
    laying = false;
    await lister;
    figures['graph_layout_ms_1000_forks'] = p50(layouts);
    figures['graph_other_list_p99_ms'] = p99(lists);

    let peak = 0;
    const stage = (name: string) => {
      const rss = treeRssMb(server!.pid!);
      peak = Math.max(peak, rss);
      process.stderr.write(`bench: abuse: server RSS ${Math.round(rss)} MB ${name}\n`);
    };
    stage('after the graphs');
    // One user with a token and streams open: the largest messages, refused larger ones, events.
    for (let i = 0; i < 3; i++) streams.push(await openEventStream(BASE, abuser.token, () => {}));
    await call(abuser.token, 'session.create', { id: 'abuse' }, 'mutation');
    const filler = 'x'.repeat(MAX_MESSAGE_BYTES - 64);
    for (let i = 0; i < 200; i++) {
      await call(abuser.token, 'message.append', { sessionId: 'abuse', message: { role: i % 2 === 0 ? 'user' : 'assistant', content: `${i} ${filler}` } }, 'mutation');
      if (i % 20 === 19) {
        await call(abuser.token, 'turn.finalize', { sessionId: 'abuse' }, 'mutation');
        stage(`after ${i + 1} appends`);
      }
    }
    stage('after 200 appends of 1 MiB');
    const huge = 'y'.repeat(20 * 1024 * 1024);
    for (let i = 0; i < 20; i++) {
      await call(abuser.token, 'message.append', { sessionId: 'abuse', message: { role: 'user', content: huge } }, 'mutation', 413);
      if (i % 5 === 4) stage(`after ${i + 1} refused`);
    }
    stage('after 20 refused appends of 20 MB');
    for (let i = 0; i < 3_000; i++) await call(abuser.token, 'session.update', { id: 'abuse', title: `Title ${i}` }, 'mutation');
    stage('after 3,000 renames');
    // What stays: V8 returns the garbage of the abuse (request bodies, refused 20 MB strings, the
    // responses) to the system some seconds after the work stops, so the figure is taken 30 s on.
    for (let i = 0; i < 15; i++) {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      peak = Math.max(peak, treeRssMb(server.pid!));
    }
    stage('30 s after the abuse');
    figures['rss_mb_after_abuse'] = Math.round(treeRssMb(server.pid!));
    figures['rss_mb_abuse_peak'] = Math.round(peak);
    // A page of 50 of those messages is 50 MiB of answer: what that read costs, on top.
    await call(abuser.token, 'message.branch', { sessionId: 'abuse', limit: 50 }, 'query');
    stage('after reading a page of 50 of them (not in the figure)');
  } finally {
    for (const stream of streams) stream.destroy();
    await stop(server);
  }
  return figures;
}
