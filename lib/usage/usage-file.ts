/**
 * The rollups' file, `users/<id>/usage.sqlite` (DESIGN §15): derived from the sessions, never the
 * truth. `exchanges` keeps one row per counted answer (so a session read again adds nothing and a
 * deleted one can be taken out); `rollup` sums them per day × model × project × agent, and
 * `session_day` per session × day × model, so a summary reads sums and not exchanges.
 *
 * Each count is a sum and how many exchanges knew it (`input`, `input_n`): a field no exchange of
 * a row knew reads as unknown (null), never as 0.
 */
import type { SqlDatabase } from '../search/index.js';
import type { TokenCounts } from '../proxy/usage.js';

export const USAGE_SCHEMA_VERSION = '1';

export const COUNT_FIELDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const satisfies readonly (keyof TokenCounts)[];
/** the columns of each count: its sum and how many exchanges knew it */
export const COUNT_COLUMNS = { input: 'input', output: 'output', cacheRead: 'cache_read', cacheWrite: 'cache_write', reasoning: 'reasoning' } as const;

const SUM_COLUMNS = Object.values(COUNT_COLUMNS).flatMap((column) => [`${column} INTEGER NOT NULL DEFAULT 0`, `${column}_n INTEGER NOT NULL DEFAULT 0`]).join(', ');
const SUM_NAMES = Object.values(COUNT_COLUMNS).flatMap((column) => [column, `${column}_n`]);

export function createSchema(db: SqlDatabase): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS exchanges (
      session_id TEXT NOT NULL, node_id TEXT NOT NULL, day TEXT NOT NULL, model TEXT NOT NULL, project TEXT NOT NULL, agent TEXT NOT NULL,
      input INTEGER, output INTEGER, cache_read INTEGER, cache_write INTEGER, reasoning INTEGER, exact INTEGER NOT NULL,
      PRIMARY KEY (session_id, node_id)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS rollup (
      day TEXT NOT NULL, model TEXT NOT NULL, project TEXT NOT NULL, agent TEXT NOT NULL,
      exchanges INTEGER NOT NULL DEFAULT 0, estimated INTEGER NOT NULL DEFAULT 0, ${SUM_COLUMNS},
      PRIMARY KEY (day, model, project, agent)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS session_day (
      session_id TEXT NOT NULL, day TEXT NOT NULL, model TEXT NOT NULL,
      exchanges INTEGER NOT NULL DEFAULT 0, estimated INTEGER NOT NULL DEFAULT 0, ${SUM_COLUMNS},
      PRIMARY KEY (session_id, day, model)) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS session_day_by_day ON session_day (day, session_id);
  `);
  db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)").run(USAGE_SCHEMA_VERSION);
}

export function readMeta(db: SqlDatabase, key: string): string | null {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key);
  return typeof row?.value === 'string' ? row.value : null;
}

export function writeMeta(db: SqlDatabase, key: string, value: string): void {
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** One counted answer, as the rollups key it. */
export interface CountedExchange extends TokenCounts {
  sessionId: string;
  nodeId: string;
  /** the UTC day of the answer, YYYY-MM-DD */
  day: string;
  /** '' when unknown */
  model: string;
  project: string;
  agent: string;
  exact: boolean;
}

function upsert(table: 'rollup' | 'session_day', keys: readonly string[]): string {
  const columns = [...keys, 'exchanges', 'estimated', ...SUM_NAMES];
  const sets = columns.slice(keys.length).map((column) => `${column} = ${column} + excluded.${column}`).join(', ');
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT(${keys.join(', ')}) DO UPDATE SET ${sets}`;
}
const ROLLUP_UPSERT = upsert('rollup', ['day', 'model', 'project', 'agent']);
const SESSION_UPSERT = upsert('session_day', ['session_id', 'day', 'model']);

/** The exchange's counts as deltas of the sums (sign -1: taken out). */
function deltas(exchange: TokenCounts & { exact: boolean }, sign: 1 | -1): number[] {
  const out = [sign, exchange.exact ? 0 : sign];
  for (const field of COUNT_FIELDS) {
    const value = exchange[field];
    out.push(value === null ? 0 : sign * value, value === null ? 0 : sign);
  }
  return out;
}

/** Counts an answer once (a second time adds nothing); true when it was new. Inside the caller's transaction. */
export function addExchange(db: SqlDatabase, exchange: CountedExchange): boolean {
  if (db.prepare('SELECT 1 AS found FROM exchanges WHERE session_id = ? AND node_id = ?').get(exchange.sessionId, exchange.nodeId)) return false;
  db.prepare('INSERT INTO exchanges VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
    exchange.sessionId, exchange.nodeId, exchange.day, exchange.model, exchange.project, exchange.agent,
    exchange.input, exchange.output, exchange.cacheRead, exchange.cacheWrite, exchange.reasoning, exchange.exact ? 1 : 0,
  );
  const change = deltas(exchange, 1);
  db.prepare(ROLLUP_UPSERT).run(exchange.day, exchange.model, exchange.project, exchange.agent, ...change);
  db.prepare(SESSION_UPSERT).run(exchange.sessionId, exchange.day, exchange.model, ...change);
  return true;
}

/** Takes a session's answers out of every sum (deleted, or about to be read again whole). Inside the caller's transaction. */
export function removeSession(db: SqlDatabase, sessionId: string): void {
  const rows = db.prepare('SELECT * FROM exchanges WHERE session_id = ?').all(sessionId);
  for (const row of rows) {
    const counts = {
      input: row.input as number | null, output: row.output as number | null, cacheRead: row.cache_read as number | null,
      cacheWrite: row.cache_write as number | null, reasoning: row.reasoning as number | null, exact: row.exact === 1,
    };
    db.prepare(ROLLUP_UPSERT).run(row.day as string, row.model as string, row.project as string, row.agent as string, ...deltas(counts, -1));
  }
  db.prepare('DELETE FROM rollup WHERE exchanges <= 0').run();
  db.prepare('DELETE FROM session_day WHERE session_id = ?').run(sessionId);
  db.prepare('DELETE FROM exchanges WHERE session_id = ?').run(sessionId);
}

/** Everything out: the rollups are read again from the sessions. */
export function emptyAll(db: SqlDatabase): void {
  db.exec('DELETE FROM exchanges; DELETE FROM rollup; DELETE FROM session_day;');
}
