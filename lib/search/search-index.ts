/**
 * One user's full-text index (DESIGN §10): SQLite FTS5 with the trigram tokenizer in
 * `users/<userId>/search.sqlite`. It is derived from the session repositories and never the truth:
 * a missing, unreadable or other-version file (also one deleted or broken while the server runs)
 * is replaced by an empty one and filled again from the sessions in the background, while
 * searches answer from what is there and say they are catching up.
 *
 * Writes are queued and applied in one transaction a little later (or before the next search), so
 * appending a message never waits for the index.
 */
import { statSync } from 'node:fs';
import { isDiskFull } from '../fs/disk-full.js';
import type { ChangeNotice, ChangeRecord } from '../store/index.js';
import { SearchInputError } from './errors.js';
import { applyOperations, catchUpOperations, operationOfNotice, recordsAfterPosition, releaseFeed, writeSessionDocuments, type Operation } from './feed-operations.js';
import { configureIndexFile, inFtsTransaction, markWhole, openEmptyIndexFile, SCHEMA_VERSION, validateIndexFile, writeFeedPosition } from './fts-file.js';
import { fillFromSessions } from './rebuild.js';
import { readHits, searchRequest } from './search-query.js';
import { WholeSessionReads } from './whole-reads.js';
import type { IndexStatus, SearchIndexOptions, SearchOptions, SearchPage, SearchSource } from './search-types.js';
import { openSqlite, type SqlDatabase, type SqliteDriver } from './sqlite.js';
import { CLOSE_WAIT_MS, DISK_FULL_RETRY_MS, FLUSH_AT, FLUSH_MS } from './write-queue-timing.js';

export { SCHEMA_VERSION };
export { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from './search-types.js';
export type { IndexState, IndexStatus, SearchHit, SearchIndexOptions, SearchOptions, SearchPage, SearchSource } from './search-types.js';

export class SearchIndex {
  readonly path: string;
  private readonly source: SearchSource;
  private readonly driver: SqliteDriver | undefined;
  private readonly onError: (error: unknown) => void;
  private db: SqlDatabase | null = null;
  /** the file the open handle is on: another inode (or none) means it was deleted or replaced */
  private inode = 0;
  private queue: Operation[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private generation = 0;
  private rebuilding: Promise<void> | null = null;
  /** an empty file being opened in place of a removed one (recreate) */
  private pendingOpen: Promise<void> | null = null;
  private unfinishedRebuild = false;
  private progress = { done: 0, total: 0 };
  private closed = false;
  private readonly detach: Array<() => void> = [];
  /** the newest feed record this index has been told of (live or on catching up) */
  private seen = 0;
  /** sessions read again whole (or some of their nodes), a few at a time */
  private readonly fullReads = new WholeSessionReads({
    read: (sessionId, ids) => this.readWhole(sessionId, ids),
    stopped: () => this.closed,
    onRead: () => this.savePosition(),
    retryMs: DISK_FULL_RETRY_MS,
  });

  private constructor(options: SearchIndexOptions) {
    this.path = options.path;
    this.source = options.source;
    this.driver = options.driver;
    this.onError = options.onError ?? ((error) => console.error('[search]', error));
  }

  /** Opens the file, or starts rebuilding it in the background when it is not a usable index. */
  static async open(options: SearchIndexOptions): Promise<SearchIndex> {
    const index = new SearchIndex(options);
    await index.openFile();
    return index;
  }

  get status(): IndexStatus {
    if (this.rebuilding) return { state: 'catching_up', ...this.progress };
    if (this.fullReads.size > 0) return { state: 'catching_up', ...this.fullReads.progress };
    return { state: 'ready', ...this.progress };
  }

  /** Resolves when no rebuild and no whole-session read is under way (tests, the CLI, a search after an import). */
  async caughtUp(): Promise<void> {
    while (this.rebuilding || this.fullReads.drained) await (this.rebuilding ?? this.fullReads.drained);
  }

  /**
   * Up to `maxMs` for the whole-session reads under way (an import that just answered): a search
   * right after it finds what it wrote. A long catch-up is not waited for; the status says so.
   */
  async settled(maxMs: number): Promise<void> {
    await this.fullReads.settled(maxMs);
  }

  /** Feed records → queued writes: the listener only pushes, so an append never waits for SQLite. */
  private follow(changes: NonNullable<SearchSource['changes']>): void {
    this.detach.push(changes.subscribe((notice) => this.take(notice)));
  }

  private take(notice: ChangeNotice): void {
    this.seen = Math.max(this.seen, notice.record.seq);
    this.enqueue(operationOfNotice(notice, this.source.nodesById !== undefined));
  }


  /** Writes everything queued now, in one transaction. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.queue.length === 0 || this.closed) return;
    if (!this.db) {
      // Being recreated: the rebuild that follows reads all of it from the sessions.
      this.queue = [];
      return;
    }
    if (!this.fileIsOurs()) {
      // Deleted or replaced under us: what is queued is in the session repos, and the rebuild reads it.
      this.queue = [];
      this.restart();
      return;
    }
    const batch = this.queue;
    this.queue = [];
    try {
      this.write(batch);
    } catch (error) {
      if (isDiskFull(error)) {
        // The transaction rolled back and the file is whole: keep the batch and try again later.
        // Recreating the file (as for a broken one) would empty search until the disk has room.
        this.queue = batch.concat(this.queue);
        if (!this.timer) {
          this.timer = setTimeout(() => this.flush(), DISK_FULL_RETRY_MS);
          this.timer.unref?.();
        }
        return;
      }
      this.failed(error);
    }
  }

  /** Up to `limit` hits, newest first, a session's hits side by side, paged by `cursor`. */
  search(q: string, options: SearchOptions = {}): SearchPage {
    const request = searchRequest(q, options);
    this.flush();
    if (this.db && !this.fileIsOurs()) this.restart();
    if (!this.db) return { hits: [], nextCursor: null, status: this.status };
    try {
      const { hits, nextCursor } = readHits(this.database(), (id) => this.source.row(id), request);
      return { hits, nextCursor, status: this.status };
    } catch (error) {
      if (error instanceof SearchInputError) throw error;
      this.failed(error);
      return { hits: [], nextCursor: null, status: this.status };
    }
  }

  /** Empties the index and fills it again from the sessions; `onProgress` after each batch. */
  async rebuild(onProgress?: (status: IndexStatus) => void): Promise<void> {
    this.recreate();
    await this.startRebuild(onProgress);
  }

  /** Writes what is queued; the file is marked whole unless a rebuild is unfinished. */
  async close(): Promise<void> {
    if (this.closed) return;
    // Whole-session reads under way are written first; left unwritten they would be read again next
    // time. Not waited for without end: on a full disk they wait for room.
    await this.fullReads.settled(CLOSE_WAIT_MS);
    if (this.closed) return;
    this.stop();
    await this.rebuilding?.catch(() => undefined);
    this.finish();
  }

  /** close() for signal handlers: nothing awaited; an unfinished rebuild starts again next time. */
  closeSync(): void {
    if (this.closed) return;
    this.stop();
    this.finish();
  }

  // ---------------------------------------------------------------------------------------------

  private stop(): void {
    for (const detach of this.detach.splice(0)) detach();
    this.flush();
    this.closed = true;
    this.generation++;
  }

  private finish(): void {
    const db = this.db;
    this.db = null;
    if (!db) return;
    try {
      if (!this.unfinishedRebuild) markWhole(db, true);
      if (!this.unfinishedRebuild) this.savePosition(db);
    } finally {
      db.close();
    }
  }

  private enqueue(operation: Operation): void {
    if (this.closed) return;
    if (operation.type === 'full') {
      this.fullReads.queue(operation.sessionId, operation.seq, operation.nodeIds);
      return;
    }
    this.queue.push(operation);
    if (this.queue.length >= FLUSH_AT) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
      this.timer.unref?.();
    }
  }

  private database(): SqlDatabase {
    if (!this.db) throw new Error('the search index is closed');
    return this.db;
  }

  private fileIsOurs(): boolean {
    const stat = statSync(this.path, { throwIfNoEntry: false });
    return stat !== undefined && stat.ino === this.inode;
  }

  private async openFile(): Promise<void> {
    const existed = statSync(this.path, { throwIfNoEntry: false }) !== undefined;
    let complete = false;
    if (existed) {
      try {
        this.db = await openSqlite(this.path, this.driver);
        complete = validateIndexFile(this.db);
      } catch {
        complete = false;
      }
    }
    const changes = this.source.changes;
    // What the feed still holds after the saved position: null when there is none or it is gone.
    let missed: ChangeRecord[] | null = null;
    if (complete && changes) missed = recordsAfterPosition(this.db!, changes);
    if (!complete || (changes && !missed)) {
      this.recreate();
      await this.pendingOpen;
      if (changes) this.startFollowing(changes);
      void this.startRebuild();
    } else {
      configureIndexFile(this.db!);
      this.inode = statSync(this.path).ino;
      // In use: a process killed before close() leaves it unmarked, and the next open rebuilds it.
      // The feed is not enough after a kill: a write acknowledged just before it may have no record
      // yet (the crash test found messages missed for good), so only a cleanly closed file (another
      // process's import meanwhile, `cli import` with the server stopped) is caught up from the feed.
      markWhole(this.db!, false);
      if (changes) {
        this.startFollowing(changes);
        this.catchUp(missed!);
      }
    }
  }

  /** Live from now on: in the same tick as reading the feed's end, so no record falls between. */
  private startFollowing(changes: NonNullable<SearchSource['changes']>): void {
    this.seen = changes.lastSeq;
    this.follow(changes);
  }

  /** The feed's records since the saved position, as writes: each session named read again once. */
  private catchUp(records: ChangeRecord[]): void {
    for (const operation of catchUpOperations(records, (sessionId) => this.source.row(sessionId) !== null)) this.enqueue(operation);
    this.flush();
    // Nothing to do: the position moves to the feed's end at once.
    if (records.length > 0) this.savePosition();
  }


  /** The session's row and its nodes (`ids`, or all), written in one transaction; true: the disk was full, try later. */
  private async readWhole(sessionId: string, ids: Set<string> | null): Promise<boolean> {
    const read = ids && this.source.nodesById ? this.source.nodesById(sessionId, [...ids]) : this.source.nodes(sessionId);
    const nodes = await read.catch(() => null);
    // A whole read (a note changed, or the session came in) takes its notes too.
    const notes = ids === null && this.source.notes ? await this.source.notes(sessionId).catch(() => null) : null;
    // Recreated meanwhile (or closed): the rebuild reads this session itself.
    if (this.closed || !this.db || this.pendingOpen) return false;
    // Writes queued before this read (a delete of the same id) go first.
    this.flush();
    if (!this.db || !this.fileIsOurs()) return false;
    // Checked in the same tick as the write: a session deleted while it was read stays out.
    const row = this.source.row(sessionId);
    if (!row || !nodes) return false;
    const db = this.db;
    try {
      inFtsTransaction(db, () => writeSessionDocuments(db, sessionId, row, nodes, notes));
    } catch (error) {
      if (isDiskFull(error)) return true;
      this.failed(error);
    }
    return false;
  }

  /** Every record up to here is in the file, none of a queued write or a read under way. */
  private position(): number {
    let low = this.seen + 1;
    for (const op of this.queue) low = Math.min(low, op.seq);
    low = Math.min(low, this.fullReads.oldestSeq() ?? low);
    return low - 1;
  }

  /** The feed position into meta, inside the caller's transaction (writePosition) or on its own. */
  private savePosition(db: SqlDatabase | null = this.db): void {
    if (!this.source.changes || !db) return;
    try {
      releaseFeed(this.source, this.writePosition(db));
    } catch (error) {
      // kept in memory: the next write saves it, and an older one only means reading more again
      if (!isDiskFull(error)) this.onError(error);
    }
  }

  private writePosition(db: SqlDatabase): number {
    const at = this.position();
    if (this.source.changes) writeFeedPosition(db, at);
    return at;
  }

  /** Closes and removes the file; an empty index of this version replaces it (pendingOpen). */
  private recreate(): void {
    this.generation++;
    const db = this.db;
    this.db = null;
    try {
      db?.close();
    } catch {
      // a broken file may refuse even to close; it is removed next
    }
    this.pendingOpen = openEmptyIndexFile(this.path, this.driver).then((fresh) => {
      this.inode = statSync(this.path).ino;
      this.db = fresh;
      this.pendingOpen = null;
    });
  }

  /** The file is gone or broken: start again from the sessions. */
  private restart(): void {
    if (this.closed || this.pendingOpen) return;
    this.recreate();
    void this.startRebuild();
  }

  private failed(error: unknown): void {
    this.onError(error);
    this.restart();
  }

  private startRebuild(onProgress?: (status: IndexStatus) => void): Promise<void> {
    const generation = ++this.generation;
    this.unfinishedRebuild = true;
    // Counted now, not after the file opens: a status read meanwhile (the reindex procedure's
    // answer, the CLI's first line) says how many sessions there are, never "0/0".
    this.progress = { done: 0, total: this.source.sessionIds().length };
    const run = (async () => {
      await this.pendingOpen;
      const current = () => generation === this.generation && !this.closed;
      if (!current()) return;
      const filled = await fillFromSessions(this.source, {
        database: () => this.database(),
        current,
        onProgress: (progress) => {
          this.progress = progress;
          onProgress?.(this.status);
        },
      });
      if (!filled || !current()) return;
      this.unfinishedRebuild = false;
      if (this.source.changes) {
        // The position from here on; the file is marked whole by close() only (a kill meanwhile: rebuilt).
        const db = this.database();
        const at = db.transaction(() => this.writePosition(db));
        releaseFeed(this.source, at);
      }
    })();
    const tracked = run
      .catch((error: unknown) => {
        if (generation === this.generation && !this.closed) this.onError(error);
      })
      .finally(() => {
        if (this.rebuilding === tracked) this.rebuilding = null;
      });
    this.rebuilding = tracked;
    return run;
  }

  private write(batch: Operation[]): void {
    const db = this.database();
    let at = 0;
    inFtsTransaction(db, () => {
      applyOperations(db, batch, (sessionId) => this.source.row(sessionId));
      at = this.writePosition(db);
    });
    releaseFeed(this.source, at);
  }
}
