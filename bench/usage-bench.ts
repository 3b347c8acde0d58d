/**
 * Usage and cost (DESIGN §15, issue 33): usage_page_ttfb_ms_1m and usage_rollup_per_exchange_ms.
 *
 * 1,000,000 exchanges over 100,000 sessions are seeded straight into the rollups' file (the same
 * `addExchange` the change feed's consumer calls, not through git: writing a million answers
 * through the store would take longer than the whole benchmark may), spread over a year, 6 models,
 * 5 projects and 3 agents, into a user's `users/<id>/usage.sqlite`, marked whole at the feed's
 * position. usage_page_ttfb_ms_1m is the p50 first byte of `/usage` (its last 30 days, prefetched
 * by the page) from the built server, signed in, warm; usage_summary_ms_1m the p50 of the summary
 * itself in process (the month by day split by model, totals, top sessions by cost);
 * usage_rollup_per_exchange_ms the p50 of counting one more exchange in its own transaction, as
 * a live notice of the feed is. Needs `npm run build`.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AuthStore } from '../lib/auth/index.js';
import { openSqlite } from '../lib/search/index.js';
import { SessionStore } from '../lib/store/index.js';
import { addExchange, createSchema, dayOf, PriceBook, DEFAULT_PRICES, summarize, type CountedExchange } from '../lib/usage/index.js';
import { requireBuild } from './figures.js';
import { scratchDir } from './scratch.js';
import { startServer } from './server-bench.js';
import { pageFirstBytes } from './page-ttfb.js';
import { p50, round } from './store-bench.js';

// BENCH_USAGE_EXCHANGES: a smaller corpus for trying the benchmark itself out
const EXCHANGES = Number(process.env['BENCH_USAGE_EXCHANGES'] ?? 1_000_000);
const SESSIONS = Math.max(1, Math.round(EXCHANGES / 10));
const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1', 'claude-haiku-4-5', 'gpt-5-codex', 'gpt-4.1', 'local-llama'];
const AGENTS = ['Claude Code', 'Codex', 'You, in the web chat'];
const END = Date.now();
const EMAIL = 'usage-bench@bench.test';
const PASSWORD = 'bench password long';
const DAY_MS = 86_400_000;

function exchangeOf(i: number): CountedExchange {
  const session = i % SESSIONS;
  // a session lives on one or two days; sessions spread over the year
  const day = dayOf(END - ((session * 7919) % 365) * DAY_MS - (i % 2) * DAY_MS);
  return {
    sessionId: `s-${session}`, nodeId: `n-${i}`, day, model: MODELS[session % MODELS.length]!, project: `p-${session % 5}`, agent: AGENTS[session % AGENTS.length]!,
    input: 20 + (i % 500), output: 100 + (i % 900), cacheRead: (i % 3) * 10_000, cacheWrite: i % 7 === 0 ? 2_000 : 0, reasoning: null, exact: true,
  };
}

export async function benchUsage(): Promise<Record<string, number>> {
  requireBuild('the usage figures');
  const dataDir = scratchDir('em-usage-bench-');
  const auth = new AuthStore(join(dataDir, 'auth'));
  const user = await auth.users.create({ email: EMAIL, password: PASSWORD, admin: true });
  auth.flushSync();
  const stateDir = join(dataDir, 'users', user.id);
  const workspaceRoot = join(dataDir, 'workspaces', user.id);
  mkdirSync(workspaceRoot, { recursive: true });
  // The store's folders and its (empty) change feed, so the rollups are whole at its position 0.
  await (await SessionStore.open({ stateDir, workspaceRoot })).close();
  const db = await openSqlite(join(stateDir, 'usage.sqlite'));
  createSchema(db);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  const BATCH = 20_000;
  for (let start = 0; start < EXCHANGES; start += BATCH) {
    db.transaction(() => {
      for (let i = start; i < Math.min(EXCHANGES, start + BATCH); i++) addExchange(db, exchangeOf(i));
    });
  }
  const prices = new PriceBook(DEFAULT_PRICES);
  const month = { from: dayOf(END - 29 * DAY_MS), to: dayOf(END), by: 'day' as const, split: 'model' as const, topSessions: 10 };
  const page: number[] = [];
  for (let run = 0; run < 15; run++) {
    const started = performance.now();
    const summary = summarize([{ owner: 'bench', db }], prices, month);
    page.push(performance.now() - started);
    if (summary.totals.exchanges === 0 || summary.topSessions.length === 0) throw new Error('the usage bench summed nothing');
  }
  const perExchange: number[] = [];
  for (let k = 0; k < 2_000; k++) {
    const exchange = { ...exchangeOf(EXCHANGES + k), day: month.to };
    const started = performance.now();
    db.transaction(() => addExchange(db, exchange));
    perExchange.push(performance.now() - started);
  }
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('clean', '1'), ('position', '0')").run();
  db.close();
  let server: ChildProcess | null = null;
  try {
    server = await startServer(dataDir);
    const firstBytes = await pageFirstBytes('/usage', EMAIL, PASSWORD, 'Top sessions by cost');
    return { usage_page_ttfb_ms_1m: round(p50(firstBytes)), usage_summary_ms_1m: round(p50(page)), usage_rollup_per_exchange_ms: round(p50(perExchange)) };
  } finally {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
  }
}
