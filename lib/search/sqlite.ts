/**
 * The one SQLite adapter of the search index: better-sqlite3 under Node, bun:sqlite under Bun,
 * node:sqlite under Deno (DESIGN §10). All three are synchronous; this is the little they share.
 * The modules are imported at run time (webpackIgnore): a Next bundle must not try to resolve
 * `bun:sqlite` or a native addon, and only the one of the running runtime may be loaded.
 */
import { chmodSync, closeSync, openSync } from 'node:fs';

export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqlRow = Record<string, unknown>;

export interface SqlStatement {
  run(...params: SqlValue[]): void;
  all(...params: SqlValue[]): SqlRow[];
  get(...params: SqlValue[]): SqlRow | undefined;
}

export interface SqlDatabase {
  readonly driver: SqliteDriver;
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  /** `work` inside BEGIN IMMEDIATE … COMMIT, rolled back when it throws */
  transaction<T>(work: () => T): T;
  close(): void;
}

export type SqliteDriver = 'better-sqlite3' | 'bun:sqlite' | 'node:sqlite';

export function currentDriver(): SqliteDriver {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions.bun) return 'bun:sqlite';
  if (versions.deno) return 'node:sqlite';
  return 'better-sqlite3';
}

/** The three drivers' statements, as far as this adapter uses them. */
interface DriverStatement {
  run(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
  get(...params: SqlValue[]): unknown;
}
interface DriverDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): DriverStatement;
  close(): unknown;
}

async function openDriver(driver: SqliteDriver, path: string): Promise<DriverDatabase> {
  if (driver === 'bun:sqlite') {
    const specifier = 'bun:sqlite';
    const { Database } = (await import(/* webpackIgnore: true */ specifier)) as { Database: new (path: string, options?: { create?: boolean; strict?: boolean }) => DriverDatabase };
    // strict: parameters bind without a $ prefix and a missing one is an error, as in the others.
    return new Database(path, { create: true, strict: true });
  }
  if (driver === 'node:sqlite') {
    const specifier = 'node:sqlite';
    const { DatabaseSync } = (await import(/* webpackIgnore: true */ specifier)) as { DatabaseSync: new (path: string) => DriverDatabase };
    return new DatabaseSync(path);
  }
  const specifier = 'better-sqlite3';
  const module = (await import(/* webpackIgnore: true */ specifier)) as { default: new (path: string) => DriverDatabase };
  return new module.default(path);
}

/** Rows as plain objects: node:sqlite gives null-prototype ones, which tests compare badly. */
function plain(row: unknown): SqlRow | undefined {
  return row === undefined || row === null ? undefined : { ...(row as SqlRow) };
}

/**
 * The index holds the text of every message: owner-only like the rest of the data directory.
 * SQLite creates a new file 0644 and gives its -wal/-shm files the database file's mode, so the
 * file is made 0600 before SQLite opens it; one an older version made is narrowed in place.
 */
function ownerOnly(path: string): void {
  if (path === ':memory:') return;
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      chmodSync(file, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

export async function openSqlite(path: string, driver: SqliteDriver = currentDriver()): Promise<SqlDatabase> {
  ownerOnly(path);
  const db = await openDriver(driver, path);
  const cache = new Map<string, SqlStatement>();
  let depth = 0;
  const database: SqlDatabase = {
    driver,
    exec: (sql) => void db.exec(sql),
    prepare(sql) {
      let statement = cache.get(sql);
      if (!statement) {
        const raw = db.prepare(sql);
        statement = {
          run: (...params) => void raw.run(...params),
          all: (...params) => raw.all(...params).map((row) => plain(row)!),
          get: (...params) => plain(raw.get(...params)),
        };
        cache.set(sql, statement);
      }
      return statement;
    },
    transaction(work) {
      // Nested calls join the outer transaction.
      if (depth > 0) return work();
      db.exec('BEGIN IMMEDIATE');
      depth++;
      try {
        const result = work();
        db.exec('COMMIT');
        return result;
      } catch (error) {
        try {
          db.exec('ROLLBACK');
        } catch {
          // SQLite rolled back already (it does on SQLITE_FULL): the work's own error is the one to throw.
        }
        throw error;
      } finally {
        depth--;
      }
    },
    close: () => void db.close(),
  };
  return database;
}
