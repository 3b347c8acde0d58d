/**
 * Load over HTTP (issue 21.3): the built server with 100 /api/events streams open (five users,
 * twenty each: the per-user cap), and autocannon driving a fixed number of connections for a
 * fixed time over the main procedures at once, one autocannon instance per procedure so that each
 * has its own throughput and latency: session.list, session.get, message.append, a turn (begin,
 * an append, finalize), session.search. The server's RSS (with its workers) is sampled every
 * second; growth is the mean of the last quarter minus the mean of the second (the first is
 * warm-up).
 *
 * - load_rps: requests per second, all procedures together; load_p99_ms: the worst procedure's p99;
 * - load_errors: connection errors, timeouts and answers other than 200 (must be 0);
 * - load_rss_growth_mb: RSS growth between the second and last quarter (must level off).
 *
 * `npm run bench -- load` runs 40 s; `npm run bench -- load --soak 3600` (or LOAD_SECONDS=3600)
 * runs an hour, not in CI. Needs `npm run build` first. Prints one line per procedure on stderr.
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { AuthStore } from '../lib/auth/index.js';
import { benchRequest, openEventStream } from './http-client.js';
import { scratchDir } from './scratch.js';
import { BASE, startServer, treeRssMb } from './server-bench.js';
import { round } from './store-bench.js';
import { requireBuild } from './figures.js';

const USERS = 5;
const STREAMS_PER_USER = 20;
const SESSIONS_PER_USER = 12;
const CONNECTIONS_PER_PROCEDURE = 4;
const DEFAULT_SECONDS = 40;

interface Owned {
  id: string;
  token: string;
}

export interface ProcedureFigures {
  procedure: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Seconds of the run: `--soak N` (bench/run.ts puts it in LOAD_SECONDS) or the short default. */
function runSeconds(): number {
  const value = Number(process.env['LOAD_SECONDS']);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_SECONDS;
}

export async function benchLoad(): Promise<Record<string, number>> {
  requireBuild('the load figures');
  const seconds = runSeconds();
  const dataDir = scratchDir('em-bench-load-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const tokens: string[] = [];
  for (let i = 0; i < USERS; i++) {
    const user = await auth.users.create({ email: `load${i}@bench.test`, password: 'bench password long', admin: i === 0 });
    tokens.push((await auth.tokens.create(user.id, { name: 'load' })).token);
  }
  auth.flushSync();

  // The stream cap stays the product's own (20 a user): the load runs as shipped.
  const server: ChildProcess = await startServer(dataDir, { OPENPROGRAM_MAX_STREAMS_PER_USER: String(STREAMS_PER_USER) });
  const agent = new http.Agent({ keepAlive: true });
  const streams: http.ClientRequest[] = [];
  let events = 0;
  const rss: number[] = [];
  let sampler: ReturnType<typeof setInterval> | null = null;
  try {
    const call = async (token: string, procedure: string, input: unknown) => {
      const answer = await benchRequest(BASE, agent, 'POST', `/api/trpc/${procedure}`, token, input);
      if (answer.status !== 200) throw new Error(`${procedure}: ${answer.status} ${answer.body.slice(0, 200)}`);
    };
    const appendTo: Owned[] = [];
    const turnFree: Owned[] = [];
    const readable: Owned[] = [];
    for (const [u, token] of tokens.entries()) {
      for (let s = 0; s < SESSIONS_PER_USER; s++) {
        const id = `load-${u}-${s}`;
        await call(token, 'session.create', { id, title: `load session ${u} ${s} loadword` });
        for (let m = 0; m < 10; m++) await call(token, 'message.append', { sessionId: id, message: { role: m % 2 ? 'assistant' : 'user', content: `seed ${m} loadword ${'text '.repeat(40)}` } });
        (s % 3 === 0 ? turnFree : appendTo).push({ id, token });
        readable.push({ id, token });
      }
    }
    for (const token of tokens) {
      for (let i = 0; i < STREAMS_PER_USER; i++) streams.push(await openEventStream(BASE, token, () => events++));
    }

    let counter = 0;
    const pick = <T>(list: T[]): T => list[counter++ % list.length]!;
    const json = { 'content-type': 'application/json' };
    const query = (procedure: string, input: unknown) => `/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
    type Request = autocannon.Request;
    type Context = { session?: Owned };
    const auth = (request: Request, owned: Owned) => ({ ...request, headers: { ...request.headers, authorization: `Bearer ${owned.token}` } });

    const definitions: { procedure: string; requests: autocannon.Request[] }[] = [
      {
        procedure: 'session.list',
        requests: [{ method: 'GET', setupRequest: (request: Request) => auth({ ...request, path: query('session.list', { scope: 'all', limit: 50 }) }, pick(readable)) }],
      },
      {
        procedure: 'session.get',
        requests: [
          {
            method: 'GET',
            setupRequest: (request: Request) => {
              const owned = pick(readable);
              return auth({ ...request, path: query('session.get', { id: owned.id }) }, owned);
            },
          },
        ],
      },
      {
        procedure: 'message.append',
        requests: [
          {
            method: 'POST',
            path: '/api/trpc/message.append',
            setupRequest: (request: Request) => {
              const owned = pick(appendTo);
              return auth({ ...request, headers: json, body: JSON.stringify({ sessionId: owned.id, message: { role: 'user', content: `appended ${counter} loadword ${'more text '.repeat(20)}` } }) }, owned);
            },
          },
        ],
      },
      {
        // One session per connection for the cycle, so a begin never meets another's open turn.
        procedure: 'turn',
        requests: [
          {
            method: 'POST',
            path: '/api/trpc/turn.begin',
            setupRequest: (request: Request, context: object & Context) => {
              const owned = turnFree.shift();
              if (!owned) throw new Error('load: more turn connections than turn sessions');
              context.session = owned;
              return auth({ ...request, headers: json, body: JSON.stringify({ sessionId: owned.id }) }, owned);
            },
          },
          {
            method: 'POST',
            path: '/api/trpc/message.append',
            setupRequest: (request: Request, context: object & Context) =>
              auth({ ...request, headers: json, body: JSON.stringify({ sessionId: context.session!.id, message: { role: 'assistant', content: `turn reply ${counter++} loadword` } }) }, context.session!),
          },
          {
            method: 'POST',
            path: '/api/trpc/turn.finalize',
            setupRequest: (request: Request, context: object & Context) => auth({ ...request, headers: json, body: JSON.stringify({ sessionId: context.session!.id, commitMessage: 'load turn' }) }, context.session!),
            onResponse: (_status: number, _body: string, context: object & Context) => {
              turnFree.push(context.session!);
            },
          },
        ],
      },
      {
        procedure: 'session.search',
        requests: [{ method: 'GET', setupRequest: (request: Request) => auth({ ...request, path: query('session.search', { q: pick(['loadword', 'appended', 'turn reply', 'seed 3']) }) }, pick(readable)) }],
      },
    ];

    const started = Date.now();
    sampler = setInterval(() => rss.push(treeRssMb(server.pid!)), 1_000);
    const results = await Promise.all(
      definitions.map(
        ({ requests }) =>
          new Promise<autocannon.Result>((resolve, reject) => {
            const instance = autocannon({ url: BASE, connections: CONNECTIONS_PER_PROCEDURE, duration: seconds, timeout: 30, requests }, (error, result) => (error ? reject(error) : resolve(result)));
            void instance;
          }),
      ),
    );
    const elapsed = (Date.now() - started) / 1000;
    clearInterval(sampler);
    sampler = null;

    const perProcedure: ProcedureFigures[] = results.map((result, index) => ({
      procedure: definitions[index]!.procedure,
      requests: result.requests.total,
      rps: round(result.requests.total / elapsed),
      p50: round(result.latency.p50),
      p99: round(result.latency.p99),
      errors: result.errors + result.timeouts + result.non2xx,
    }));
    for (const figures of perProcedure) {
      process.stderr.write(`load: ${figures.procedure} ${figures.requests} requests, ${figures.rps}/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, ${figures.errors} errors\n`);
    }
    const quarter = Math.floor(rss.length / 4);
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
    const growth = mean(rss.slice(rss.length - quarter)) - mean(rss.slice(quarter, 2 * quarter));
    process.stderr.write(`load: ${seconds} s, ${streams.length} event streams (${events} events), RSS ${round(Math.min(...rss))}–${round(Math.max(...rss))} MB\n`);
    return {
      load_rps: round(perProcedure.reduce((sum, figures) => sum + figures.requests, 0) / elapsed),
      load_p99_ms: Math.max(...perProcedure.map((figures) => figures.p99)),
      load_errors: perProcedure.reduce((sum, figures) => sum + figures.errors, 0),
      load_rss_growth_mb: round(growth),
    };
  } finally {
    if (sampler) clearInterval(sampler);
    for (const stream of streams) stream.destroy();
    agent.destroy();
    if (server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }
}
