/**
 * One user's usage rollups (DESIGN §15), kept in `users/<id>/usage.sqlite` and fed by the change
 * feed (DESIGN §3) like the search index: live notices while open, and from the position saved in
 * the file when it is opened again (`cli import` with the server stopped). A file that is missing,
 * of another version, not closed cleanly, or whose position the feed no longer holds is filled
 * again from the sessions. So a summary reads sums, whatever the number of exchanges.
 */
import { rmSync, statSync } from 'node:fs';
import type { ChangeNotice, ChangeRecord, Message, SessionRow } from '../store/index.js';
import { openSqlite, type SearchSource, type SqlDatabase, type SqliteDriver } from '../search/index.js';
import { addExchange, createSchema, emptyAll, readMeta, removeSession, USAGE_SCHEMA_VERSION, writeMeta } from './usage-file.js';
import { exchangeOfMessage } from './exchange-of-message.js';

/** The feed's name for this consumer: its position holds back the feed's compaction. */
export const FEED_CONSUMER = 'usage';

export interface UsageRollupsOptions {
  path: string;
  source: SearchSource;
  driver?: SqliteDriver;
  onError?: (error: unknown) => void;
}

export class UsageRollups {
  readonly path: string;
  private readonly source: SearchSource;
  private readonly onError: (error: unknown) => void;
  private db: SqlDatabase | null = null;
  private detach: (() => void) | null = null;
  /** the newest feed record told of, and the records whose session reads are under way */
  private seen = 0;
  private readonly pending = new Map<number, Promise<void>>();
  private rebuilding: Promise<void> | null = null;
  private closed = false;

  private constructor(options: UsageRollupsOptions) {
    this.path = options.path;
    this.source = options.source;
    this.onError = options.onError ?? ((error) => console.error('[usage]', error));
  }

  static async open(options: UsageRollupsOptions & { driver?: SqliteDriver }): Promise<UsageRollups> {
    const rollups = new UsageRollups(options);
    const existed = statSync(options.path, { throwIfNoEntry: false }) !== undefined;
    let db: SqlDatabase;
    try {
      db = await openSqlite(options.path, options.driver);
      createSchema(db);
    } catch {
      // Not a usable file: a fresh one, filled from the sessions.
      rmSync(options.path, { force: true });
      db = await openSqlite(options.path, options.driver);
      createSchema(db);
    }
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    rollups.db = db;
    const changes = options.source.changes;
    const whole = existed && readMeta(db, 'schema') === USAGE_SCHEMA_VERSION && readMeta(db, 'clean') === '1';
    const at = Number(readMeta(db, 'position') ?? NaN);
    const missed = whole && changes && Number.isSafeInteger(at) ? changes.readAfter(at) : null;
    // In use: a kill before close() leaves it unmarked, and the next open reads the sessions again.
    writeMeta(db, 'clean', '0');
    if (changes) {
      rollups.seen = changes.lastSeq;
      rollups.detach = changes.subscribe((notice) => rollups.take(notice));
    }
    if (whole && (!changes || missed)) rollups.catchUp(missed ?? []);
    else rollups.startRebuild();
    return rollups;
  }

  /** The file, for the summaries (null once closed). */
  get database(): SqlDatabase | null {
    return this.db;
  }

  /** Resolves when no rebuild and no session read is under way. */
  async caughtUp(): Promise<void> {
    while (this.rebuilding || this.pending.size > 0) await (this.rebuilding ?? Promise.all(this.pending.values()));
  }

  get catchingUp(): boolean {
    return this.rebuilding !== null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.stopFollowing();
    await this.caughtUp().catch(() => undefined);
    const db = this.release();
    if (!db) return;
    try {
      this.savePosition(db);
      writeMeta(db, 'clean', '1');
    } finally {
      db.close();
    }
  }

  /** close() for signal handlers: nothing awaited; reads under way leave it unmarked, so it is read again next time. */
  closeSync(): void {
    if (this.closed) return;
    this.stopFollowing();
    const db = this.release();
    if (!db) return;
    try {
      this.savePosition(db);
      if (this.pending.size === 0 && !this.rebuilding) writeMeta(db, 'clean', '1');
    } finally {
      db.close();
    }
  }

  private stopFollowing(): void {
    this.detach?.();
    this.detach = null;
  }

  /** Marks it closed and hands over the database, once: the caller saves and closes it. */
  private release() {
    this.closed = true;
    const db = this.db;
    this.db = null;
    return db;
  }

  // ---------------------------------------------------------------------------------------------

  private take({ record, message }: ChangeNotice): void {
    this.seen = Math.max(this.seen, record.seq);
    if (this.rebuilding) return; // the rebuild reads the sessions as they are by then
    if (record.kind === 'nodes' && message) {
      const row = this.source.row(record.sessionId);
      if (message.role === 'assistant' && row) this.write(() => this.add(row, [message]));
      this.savePosition();
    } else if (record.kind === 'nodes' && record.nodeIds && this.source.nodesById) {
      this.readSession(record, () => this.source.nodesById!(record.sessionId, record.nodeIds!), false);
    } else if (record.kind === 'nodes' || record.kind === 'created') {
      this.readSession(record, () => this.source.nodes(record.sessionId), true);
    } else if (record.kind === 'deleted') {
      this.write((db) => removeSession(db, record.sessionId));
      this.savePosition();
    }
  }

  /** Sessions read again (a large node, an import, a move in): counted once whatever was there before. */
  private readSession(record: ChangeRecord, read: () => Promise<Message[]>, whole: boolean): void {
    const job = read()
      .then((nodes) => {
        const row = this.source.row(record.sessionId);
        if (!row || this.closed) return;
        this.write((db) => {
          if (whole) removeSession(db, record.sessionId);
          this.add(row, nodes);
        });
      })
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.pending.delete(record.seq);
        this.savePosition();
      });
    this.pending.set(record.seq, job);
  }

  /** Records missed while the file was closed: each session they name read again once. */
  private catchUp(records: ChangeRecord[]): void {
    const named = new Map<string, ChangeRecord>();
    for (const record of records) if (record.kind !== 'session') named.set(record.sessionId, record);
    for (const [sessionId, record] of named) {
      if (this.source.row(sessionId)) this.readSession({ ...record, kind: 'created' }, () => this.source.nodes(sessionId), true);
      else this.write((db) => removeSession(db, sessionId));
    }
    this.savePosition();
  }

  private startRebuild(): void {
    const run: Promise<void> = Promise.resolve()
      .then(() => this.rebuild())
      .finally(() => {
        if (this.rebuilding === run) this.rebuilding = null;
        // What came meanwhile was read with the sessions; the records since are followed live.
        this.savePosition();
      });
    this.rebuilding = run;
  }

  private async rebuild(): Promise<void> {
    try {
      this.write((db) => emptyAll(db));
      for (const sessionId of this.source.sessionIds()) {
        if (this.closed) return;
        const row = this.source.row(sessionId);
        const nodes = row ? await this.source.nodes(sessionId).catch(() => []) : [];
        if (row && !this.closed) this.write(() => this.add(row, nodes));
      }
    } catch (error) {
      this.onError(error);
    }
  }

  private add(row: SessionRow, nodes: readonly Message[]): void {
    const db = this.db!;
    for (const node of nodes) {
      const exchange = exchangeOfMessage(row, node);
      if (exchange) addExchange(db, exchange);
    }
  }

  private write(work: (db: SqlDatabase) => void): void {
    const db = this.db;
    if (!db || this.closed) return;
    try {
      db.transaction(() => work(db));
    } catch (error) {
      this.onError(error);
    }
  }

  /** Everything up to here is counted: no read under way is older. */
  private position(): number {
    let low = this.seen;
    for (const seq of this.pending.keys()) low = Math.min(low, seq - 1);
    return low;
  }

  private savePosition(db: SqlDatabase | null = this.db): void {
    if (!db || this.rebuilding) return;
    const at = this.position();
    try {
      writeMeta(db, 'position', String(at));
      this.source.changes?.release(at, FEED_CONSUMER);
    } catch (error) {
      this.onError(error);
    }
  }
}
