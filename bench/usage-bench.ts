/**
 * Usage and cost (DESIGN §15, issue 33): usage_page_ttfb_ms_1m and usage_rollup_per_exchange_ms.
 *
 * 1,000,000 exchanges over 100,000 sessions are seeded straight into the rollups' file (the same
 * `addExchange` the change feed's consumer calls, not through git: writing a million answers
 * through the store would take longer than the whole benchmark may), spread over a year, 6 models,
 * 5 projects and 3 agents. usage_page_ttfb_ms_1m is the p50 of what the /usage page computes
 * before its first byte (the month by day split by model, its totals and top sessions by cost);
 * usage_rollup_per_exchange_ms the p50 of counting one more exchange in its own transaction, as
 * a live notice of the feed is.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openSqlite } from '../lib/search/index.js';
import { addExchange, createSchema, dayOf, PriceBook, DEFAULT_PRICES, summarize, type CountedExchange } from '../lib/usage/index.js';
import { scratchDir } from './scratch.js';
import { p50, round } from './store-bench.js';

// BENCH_USAGE_EXCHANGES: a smaller corpus for trying the benchmark itself out
const EXCHANGES = Number(process.env['BENCH_USAGE_EXCHANGES'] ?? 1_000_000);
const SESSIONS = Math.max(1, Math.round(EXCHANGES / 10));
const MODELS = ['claude-sonnet-4-5-20250929', 'claude-opus-4-1', 'claude-haiku-4-5', 'gpt-5-codex', 'gpt-4.1', 'local-llama'];
const AGENTS = ['Claude Code', 'Codex', 'You, in the web chat'];
const END = Date.parse('2026-12-31T12:00:00Z');
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
  const dir = scratchDir('em-usage-bench-');
  const db = await openSqlite(join(dir, 'usage.sqlite'));
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
  db.close();
  return { usage_page_ttfb_ms_1m: round(p50(page)), usage_rollup_per_exchange_ms: round(p50(perExchange)) };
}
