/**
 * What the Usage page, `usage.summary`, the CLI and a session's header read (DESIGN §15): the
 * rollups' sums over a range of UTC days, by day, week or month, split by model, project, agent or
 * (across users' files) user, priced with the price valid on each day. Reads sums, never exchanges.
 */
import type { SqlDatabase, SqlRow } from '../search/index.js';
import type { PriceBook } from './prices.js';
import { COUNT_COLUMNS, COUNT_FIELDS } from './usage-file.js';

export const USAGE_BY = ['day', 'week', 'month'] as const;
export type UsageBy = (typeof USAGE_BY)[number];
export const USAGE_SPLITS = ['model', 'project', 'agent', 'user'] as const;
export type UsageSplit = (typeof USAGE_SPLITS)[number];

/** Figures of a bucket: a count no exchange knew is null; cost is null when no exchange had a price. */
export interface UsageFigures {
  exchanges: number;
  /** exchanges whose counts are an import's estimate, not the wire's */
  estimated: number;
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  reasoning: number | null;
  costUsd: number | null;
  /** exchanges of a model without a price on their day (not in costUsd) */
  unpriced: number;
  /** cache read ÷ all input (uncached, cache read, cache write); null without cache figures */
  cacheHitRate: number | null;
}

export interface UsageRow extends UsageFigures {
  /** YYYY-MM-DD (day; the Monday of a week) or YYYY-MM (month) */
  period: string;
  /** the split's value (model, project id, agent, user); null without a split */
  key: string | null;
}

export interface UsageSession extends UsageFigures {
  sessionId: string;
  /** the user whose session it is (the admin's view across users) */
  owner: string;
}

export interface UsageSummary {
  from: string;
  to: string;
  by: UsageBy;
  split: UsageSplit | null;
  rows: UsageRow[];
  totals: UsageFigures;
  topSessions: UsageSession[];
  /** models seen in the range without a price on some day */
  unpricedModels: string[];
}

export interface UsageQuery {
  from: string;
  to: string;
  by: UsageBy;
  split?: UsageSplit | null;
  topSessions?: number;
}

/** One user's rollups file, named for the `user` split. */
export interface UsageSource {
  owner: string;
  db: SqlDatabase;
}

/** The bucket of a day: itself, the Monday of its ISO week, or its month. */
export function periodOf(day: string, by: UsageBy): string {
  if (by === 'day') return day;
  if (by === 'month') return day.slice(0, 7);
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7));
  return date.toISOString().slice(0, 10);
}

/** Sums as the file keeps them: each count and how many exchanges knew it. */
class Tally {
  exchanges = 0;
  estimated = 0;
  readonly sums = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  readonly known = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0 };
  cost = 0;
  priced = 0;
  unpriced = 0;

  add(row: SqlRow, prices: PriceBook, unpricedModels: Set<string>): void {
    const exchanges = Number(row.exchanges);
    this.exchanges += exchanges;
    this.estimated += Number(row.estimated);
    for (const field of COUNT_FIELDS) {
      this.sums[field] += Number(row[COUNT_COLUMNS[field]]);
      this.known[field] += Number(row[`${COUNT_COLUMNS[field]}_n`]);
    }
    const price = prices.at(String(row.model), String(row.day));
    if (!price) {
      this.unpriced += exchanges;
      unpricedModels.add(String(row.model) || '(unknown model)');
      return;
    }
    // Counts nobody knew cost nothing known: unknown, not $0.
    if (Number(row.input_n) + Number(row.output_n) + Number(row.cache_read_n) + Number(row.cache_write_n) === 0) return;
    this.priced += exchanges;
    const tokens = (field: keyof typeof COUNT_COLUMNS) => Number(row[COUNT_COLUMNS[field]]);
    this.cost += (tokens('input') * price.input + tokens('output') * price.output + tokens('cacheRead') * price.cacheRead + tokens('cacheWrite') * price.cacheWrite) / 1_000_000;
  }

  merge(other: Tally): void {
    this.exchanges += other.exchanges;
    this.estimated += other.estimated;
    for (const field of COUNT_FIELDS) {
      this.sums[field] += other.sums[field];
      this.known[field] += other.known[field];
    }
    this.cost += other.cost;
    this.priced += other.priced;
    this.unpriced += other.unpriced;
  }

  figures(): UsageFigures {
    const count = (field: (typeof COUNT_FIELDS)[number]) => (this.known[field] > 0 ? this.sums[field] : null);
    const input = count('input');
    const cacheRead = count('cacheRead');
    const cacheWrite = count('cacheWrite');
    const all = (input ?? 0) + (cacheRead ?? 0) + (cacheWrite ?? 0);
    return {
      exchanges: this.exchanges,
      estimated: this.estimated,
      input,
      output: count('output'),
      cacheRead,
      cacheWrite,
      reasoning: count('reasoning'),
      // Rounded to a millionth of a dollar: sums of floats otherwise differ in their last digits.
      costUsd: this.priced > 0 ? Math.round(this.cost * 1_000_000) / 1_000_000 : null,
      unpriced: this.unpriced,
      cacheHitRate: cacheRead !== null && all > 0 ? cacheRead / all : null,
    };
  }
}

const SUMS = ['exchanges', 'estimated', ...Object.values(COUNT_COLUMNS).flatMap((column) => [column, `${column}_n`])].map((column) => `SUM(${column}) AS ${column}`).join(', ');

/** The summary of one or more users' rollups (several: the admin's view; `user` splits by owner). */
export function summarize(sources: readonly UsageSource[], prices: PriceBook, query: UsageQuery): UsageSummary {
  const split = query.split ?? null;
  const buckets = new Map<string, { period: string; key: string | null; tally: Tally }>();
  const totals = new Tally();
  const unpricedModels = new Set<string>();
  const column = split === 'model' || split === 'project' || split === 'agent' ? split : null;
  const sessions: { owner: string; sessionId: string; tally: Tally }[] = [];
  for (const { owner, db } of sources) {
    const rows = db
      .prepare(`SELECT day, model${column && column !== 'model' ? `, ${column}` : ''}, ${SUMS} FROM rollup WHERE day >= ? AND day <= ? GROUP BY day, model${column && column !== 'model' ? `, ${column}` : ''}`)
      .all(query.from, query.to);
    for (const row of rows) {
      const period = periodOf(String(row.day), query.by);
      const key = split === 'user' ? owner : column ? String(row[column]) : null;
      const id = `${period}\u0000${key ?? ''}`;
      const bucket = buckets.get(id) ?? { period, key, tally: new Tally() };
      bucket.tally.add(row, prices, unpricedModels);
      buckets.set(id, bucket);
    }
    for (const session of topSessionsOf(db, prices, query)) sessions.push({ owner, ...session });
  }
  for (const bucket of buckets.values()) totals.merge(bucket.tally);
  const rows = [...buckets.values()]
    .sort((a, b) => a.period.localeCompare(b.period) || (a.key ?? '').localeCompare(b.key ?? ''))
    .map(({ period, key, tally }) => ({ period, key, ...tally.figures() }));
  const topSessions = sessions
    .map(({ owner, sessionId, tally }) => ({ owner, sessionId, ...tally.figures() }))
    .sort((a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1) || (b.input ?? 0) + (b.output ?? 0) - ((a.input ?? 0) + (a.output ?? 0)))
    .slice(0, query.topSessions ?? 10);
  return { from: query.from, to: query.to, by: query.by, split, rows, totals: totals.figures(), topSessions, unpricedModels: [...unpricedModels].sort() };
}

/**
 * The sessions of the range that cost most: the prices of each (day, model) in the range go into a
 * temporary table, so SQLite sums and ranks the sessions without handing every row to JavaScript.
 */
function topSessionsOf(db: SqlDatabase, prices: PriceBook, query: UsageQuery): { sessionId: string; tally: Tally }[] {
  const limit = query.topSessions ?? 10;
  if (limit === 0) return [];
  db.exec('CREATE TEMP TABLE IF NOT EXISTS price_of (day TEXT NOT NULL, model TEXT NOT NULL, input REAL, output REAL, cache_read REAL, cache_write REAL, PRIMARY KEY (day, model)) WITHOUT ROWID; DELETE FROM temp.price_of;');
  const insert = db.prepare('INSERT INTO temp.price_of VALUES (?, ?, ?, ?, ?, ?)');
  for (const row of db.prepare('SELECT DISTINCT day, model FROM rollup WHERE day >= ? AND day <= ?').all(query.from, query.to)) {
    const price = prices.at(String(row.model), String(row.day));
    insert.run(String(row.day), String(row.model), price?.input ?? null, price?.output ?? null, price?.cacheRead ?? null, price?.cacheWrite ?? null);
  }
  const ranked = db
    .prepare(
      `SELECT s.session_id, SUM(s.input * p.input + s.output * p.output + s.cache_read * p.cache_read + s.cache_write * p.cache_write) AS cost, SUM(s.input + s.output) AS tokens
       FROM session_day s JOIN temp.price_of p ON p.day = s.day AND p.model = s.model
       WHERE s.day >= ? AND s.day <= ? GROUP BY s.session_id ORDER BY cost DESC NULLS LAST, tokens DESC LIMIT ?`,
    )
    .all(query.from, query.to, limit);
  return ranked.map((row) => {
    const sessionId = String(row.session_id);
    const tally = new Tally();
    for (const day of db.prepare('SELECT * FROM session_day WHERE session_id = ? AND day >= ? AND day <= ?').all(sessionId, query.from, query.to)) tally.add(day, prices, new Set());
    return { sessionId, tally };
  });
}

/** A session's figures over all its days (its header). */
export function sessionFigures(db: SqlDatabase, sessionId: string, prices: PriceBook): UsageFigures {
  const tally = new Tally();
  for (const row of db.prepare('SELECT * FROM session_day WHERE session_id = ?').all(sessionId)) tally.add(row, prices, new Set());
  return tally.figures();
}

