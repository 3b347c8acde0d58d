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
import { rmSync, statSync } from 'node:fs';
import { isDiskFull } from '../fs/disk-full.js';
import type { ChangeFeed, ChangeNotice, ChangeRecord, Message, SessionRow } from '../store/index.js';
import { nodeDocument, sessionDocument, type DocumentKind, type SearchDocument } from './documents.js';
import { SearchInputError } from './errors.js';
import { holdsShortTerms, parseQuery } from './query.js';
import { snippetOf, type SnippetSegment } from './snippet.js';
import { openSqlite, type SqlDatabase, type SqliteDriver } from './sqlite.js';

/**
 * Bumped when the tables change: a file of another version is rebuilt. 2: the change feed's
 * position (meta feed_seq); a version-1 file may lack imported messages (issue 28), so it is rebuilt.
 */
export const SCHEMA_VERSION = 2;
export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;
const FLUSH_MS = 50;
/** a queue this long is written at once instead of waiting for the timer */
const FLUSH_AT = 2_000;
/** how long a write that met a full disk waits before it is tried again */
const DISK_FULL_RETRY_MS = 1_000;
/** sessions read between two rebuild transactions */
const REBUILD_BATCH = 25;
/** FTS5's own default; a rebuild turns merging off and back on */
const DEFAULT_AUTOMERGE = 4;
/** pages of segments merged per slice after a rebuild */
const MERGE_PAGES = 500;
/** sessions read again at once (a created or imported one, or one the feed names on catching up) */
const FULL_READS = 4;
/** how long close() waits for those reads (they wait for room on a full disk) */
const CLOSE_WAIT_MS = 5_000;

/** What the index is built from and checks hits against: the user's own session store. */
export interface SearchSource {
  /** every session id, oldest updated first (so that newer sessions get the higher row ids) */
  sessionIds(): string[];
  /** the session's row now, or null once it is deleted */
  row(sessionId: string): SessionRow | null;
  /** every node of the session, by seq */
  nodes(sessionId: string): Promise<Message[]>;
  /** these nodes of the session, whole (a large message, whose live notice is only its stub) */
  nodesById?(sessionId: string, ids: readonly string[]): Promise<Message[]>;
  /**
   * The user's change feed (DESIGN §3): followed live, and read on from the saved position when a
   * cleanly closed file is opened, so whatever wrote the history (this process or another) is
   * indexed. A file not closed cleanly is rebuilt, feed or not.
   */
  changes?: Pick<ChangeFeed, 'lastSeq' | 'readAfter' | 'subscribe' | 'release'>;
}

export type IndexState = 'ready' | 'catching_up';

export interface IndexStatus {
  state: IndexState;
  /** sessions read so far by the rebuild under way, and how many it has to read */
  done: number;
  total: number;
}

export interface SearchHit {
  sessionId: string;
  /** the conversation message to open at; null for a title hit */
  messageId: string | null;
  kind: DocumentKind;
  title: string;
  preview: string | null;
  channel: string | null;
  snippet: SnippetSegment[];
  archived: boolean;
  updatedAt: number;
}

export interface SearchPage {
  hits: SearchHit[];
  nextCursor: string | null;
  status: IndexStatus;
}

export interface SearchOptions {
  scope?: 'active' | 'archived' | 'all';
  limit?: number;
  cursor?: string | null;
}

export interface SearchIndexOptions {
  path: string;
  source: SearchSource;
  driver?: SqliteDriver;
  /** where a failed background write or rebuild is reported (default console.error) */
  onError?: (error: unknown) => void;
}

/** `seq`: the change-feed record it comes from (0 without a feed) */
type Operation =
  | { type: 'node'; seq: number; sessionId: string; message: Message }
  | { type: 'session'; seq: number; sessionId: string }
  | { type: 'delete'; seq: number; sessionId: string }
  /** read the session again: whole (created, imported, named on catching up), or these nodes (`nodeIds`) */
  | { type: 'full'; seq: number; sessionId: string; nodeIds?: string[] };

const SCHEMA = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE docs (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL,
    node_id TEXT NOT NULL,
    anchor_id TEXT,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (session_id, node_id)
  );
  CREATE VIRTUAL TABLE fts USING fts5(text, content='docs', content_rowid='id', tokenize='trigram');
  CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN INSERT INTO fts(fts, rowid, text) VALUES ('delete', old.id, old.text); END;
  INSERT INTO meta (key, value) VALUES ('complete', '0');
  PRAGMA user_version = ${SCHEMA_VERSION};
`;

function encodeCursor(id: number): string {
  return Buffer.from(JSON.stringify(['fts', id])).toString('base64url');
}

function decodeCursor(cursor: string): number {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value[0] === 'fts' && Number.isSafeInteger(value[1]) && value[1] > 0) return value[1];
  } catch {
    // fall through
  }
  throw new SearchInputError('invalid cursor');
}

/** LIKE pattern of a substring, with LIKE's own wildcards taken literally. */
function likePattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

interface DocRow {
  id: number;
  session_id: string;
  anchor_id: string | null;
  kind: DocumentKind;
  text: string;
}

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
  /** whole-session reads waiting or running: session id → the oldest record they stand for */
  private readonly fulls = new Map<string, number>();
  private readonly fullsWaiting: string[] = [];
  private fullsRunning = 0;
  private fullProgress = { done: 0, total: 0 };
  private fullsDrained: Promise<void> | null = null;
  private drainFulls: (() => void) | null = null;

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
    if (this.fulls.size > 0) return { state: 'catching_up', ...this.fullProgress };
    return { state: 'ready', ...this.progress };
  }

  /** Resolves when no rebuild and no whole-session read is under way (tests, the CLI, a search after an import). */
  async caughtUp(): Promise<void> {
    while (this.rebuilding || this.fullsDrained) await (this.rebuilding ?? this.fullsDrained);
  }

  /**
   * Up to `maxMs` for the whole-session reads under way (an import that just answered): a search
   * right after it finds what it wrote. A long catch-up is not waited for; the status says so.
   */
  async settled(maxMs: number): Promise<void> {
    if (!this.fullsDrained) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.fullsDrained, new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)))]);
    clearTimeout(timer);
  }

  /** Feed records → queued writes: the listener only pushes, so an append never waits for SQLite. */
  private follow(changes: NonNullable<SearchSource['changes']>): void {
    this.detach.push(changes.subscribe((notice) => this.take(notice)));
  }

  private take({ record, message }: ChangeNotice): void {
    this.seen = Math.max(this.seen, record.seq);
    const { seq, sessionId } = record;
    if (record.kind === 'nodes' && message) this.enqueue({ type: 'node', seq, sessionId, message });
    else if (record.kind === 'nodes' && record.nodeIds && this.source.nodesById) this.enqueue({ type: 'full', seq, sessionId, nodeIds: record.nodeIds });
    else if (record.kind === 'nodes' || record.kind === 'created') this.enqueue({ type: 'full', seq, sessionId });
    else if (record.kind === 'session') this.enqueue({ type: 'session', seq, sessionId });
    else this.enqueue({ type: 'delete', seq, sessionId });
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
    const limit = options.limit ?? SEARCH_LIMIT_DEFAULT;
    if (!Number.isInteger(limit) || limit < 1 || limit > SEARCH_LIMIT_MAX) throw new SearchInputError(`limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}`);
    const scope = options.scope ?? 'all';
    if (!['active', 'archived', 'all'].includes(scope)) throw new SearchInputError('scope must be active, archived or all');
    const parsed = parseQuery(q);
    let before = options.cursor ? decodeCursor(options.cursor) : Number.MAX_SAFE_INTEGER;
    this.flush();
    if (this.db && !this.fileIsOurs()) this.restart();
    if (!this.db) return { hits: [], nextCursor: null, status: this.status };
    const hits: SearchHit[] = [];
    let nextCursor: string | null = null;
    try {
      const db = this.database();
      // Read in chunks: hits of deleted sessions or of another scope are skipped, not counted.
      const chunk = Math.max(limit * 2, 64);
      scan: for (;;) {
        const rows = (
          parsed.match
            ? db
                .prepare(
                  `SELECT d.id, d.session_id, d.anchor_id, d.kind, d.text FROM docs d
                   WHERE d.id IN (SELECT rowid FROM fts WHERE fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?)
                   ORDER BY d.id DESC`,
                )
                .all(parsed.match, before, chunk)
            : db.prepare(`SELECT id, session_id, anchor_id, kind, text FROM docs WHERE id < ? AND text LIKE ? ESCAPE '\\' ORDER BY id DESC LIMIT ?`).all(before, likePattern(parsed.short[0]!), chunk)
        ) as unknown as DocRow[];
        for (const doc of rows) {
          before = doc.id;
          const row = this.source.row(doc.session_id);
          if (!row) continue;
          if (scope === 'active' && row.archived) continue;
          if (scope === 'archived' && !row.archived) continue;
          if (!holdsShortTerms(doc.text, parsed.short)) continue;
          hits.push({
            sessionId: doc.session_id,
            messageId: doc.anchor_id,
            kind: doc.kind,
            title: row.title,
            preview: row.preview,
            channel: row.channel,
            snippet: snippetOf(doc.text, parsed.terms, { markdown: doc.kind === 'user' || doc.kind === 'assistant' || doc.kind === 'system' }),
            archived: row.archived,
            updatedAt: row.updatedAt,
          });
          if (hits.length === limit) {
            nextCursor = encodeCursor(doc.id);
            break scan;
          }
        }
        if (rows.length < chunk) break;
      }
    } catch (error) {
      if (error instanceof SearchInputError) throw error;
      this.failed(error);
      return { hits: [], nextCursor: null, status: this.status };
    }
    return { hits: groupBySession(hits), nextCursor, status: this.status };
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
    if (this.fullsDrained) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([this.fullsDrained, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(timer);
    }
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
      if (!this.unfinishedRebuild) db.prepare("UPDATE meta SET value = '1' WHERE key = 'complete'").run();
      if (!this.unfinishedRebuild) this.savePosition(db);
    } finally {
      db.close();
    }
  }

  private enqueue(operation: Operation): void {
    if (this.closed) return;
    if (operation.type === 'full') {
      this.queueFull(operation.sessionId, operation.seq, operation.nodeIds);
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
        complete = this.validate(this.db);
      } catch {
        complete = false;
      }
    }
    const changes = this.source.changes;
    // What the feed still holds after the saved position: null when there is none or it is gone.
    let missed: ChangeRecord[] | null = null;
    if (complete && changes) {
      const at = Number(this.db!.prepare("SELECT value FROM meta WHERE key = 'feed_seq'").get()?.['value'] ?? -1);
      missed = Number.isSafeInteger(at) && at >= 0 ? changes.readAfter(at) : null;
    }
    if (!complete || (changes && !missed)) {
      this.recreate();
      await this.pendingOpen;
      if (changes) this.startFollowing(changes);
      void this.startRebuild();
    } else {
      this.configure(this.db!);
      this.inode = statSync(this.path).ino;
      // In use: a process killed before close() leaves it unmarked, and the next open rebuilds it.
      // The feed is not enough after a kill: a write acknowledged just before it may have no record
      // yet (the crash test found messages missed for good), so only a cleanly closed file (another
      // process's import meanwhile, `cli import` with the server stopped) is caught up from the feed.
      this.db!.prepare("UPDATE meta SET value = '0' WHERE key = 'complete'").run();
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
    const sessions = new Map<string, { first: number; deleted: number | null; whole: boolean; row: boolean }>();
    for (const record of records) {
      const seen = sessions.get(record.sessionId) ?? { first: record.seq, deleted: null, whole: false, row: false };
      if (record.kind === 'deleted') seen.deleted ??= record.seq;
      else if (record.kind === 'session') seen.row = true;
      else seen.whole = true;
      sessions.set(record.sessionId, seen);
    }
    for (const [sessionId, seen] of sessions) {
      if (seen.deleted !== null) this.enqueue({ type: 'delete', seq: seen.deleted, sessionId });
      const exists = this.source.row(sessionId) !== null;
      if (exists && (seen.whole || seen.deleted !== null)) this.enqueue({ type: 'full', seq: seen.first, sessionId });
      else if (exists && seen.row) this.enqueue({ type: 'session', seq: seen.first, sessionId });
    }
    this.flush();
    // Nothing to do: the position moves to the feed's end at once.
    if (records.length > 0) this.savePosition();
  }

  // --- whole-session reads ---------------------------------------------------------------------

  /**
   * `ids`: the nodes the next read takes, null for the whole session. `again`: what to read once
   * more after the read under way (undefined: nothing), for a change that may have come too late for it.
   */
  private readonly fullState = new Map<string, { running: boolean; ids: Set<string> | null; again?: Set<string> | null }>();

  private queueFull(sessionId: string, seq: number, nodeIds?: string[]): void {
    const wanted = nodeIds ? new Set(nodeIds) : null;
    const merge = (into: Set<string> | null | undefined): Set<string> | null => (into === null || wanted === null ? null : new Set([...(into ?? []), ...wanted]));
    const state = this.fullState.get(sessionId);
    if (state) {
      // Waiting: that read takes this change too. Running: it may have read too early; read once more.
      if (state.running) state.again = merge(state.again);
      else state.ids = merge(state.ids);
      return;
    }
    this.fulls.set(sessionId, seq);
    this.fullState.set(sessionId, { running: false, ids: wanted });
    this.fullsWaiting.push(sessionId);
    this.fullProgress.total++;
    this.fullsDrained ??= new Promise((resolve) => (this.drainFulls = resolve));
    this.pumpFulls();
  }

  private pumpFulls(): void {
    while (this.fullsRunning < FULL_READS && this.fullsWaiting.length > 0) {
      const sessionId = this.fullsWaiting.shift()!;
      const state = this.fullState.get(sessionId)!;
      state.running = true;
      this.fullsRunning++;
      const ids = state.ids;
      void this.readWhole(sessionId, ids).then((retry) => {
        this.fullsRunning--;
        state.running = false;
        if (this.closed) return this.endFull(sessionId);
        if (retry) {
          state.ids = ids === null || state.again === null ? null : new Set([...ids, ...(state.again ?? [])]);
          state.again = undefined;
          setTimeout(() => {
            this.fullsWaiting.push(sessionId);
            this.pumpFulls();
          }, DISK_FULL_RETRY_MS).unref?.();
        } else if (state.again !== undefined) {
          state.ids = state.again;
          state.again = undefined;
          this.fullsWaiting.push(sessionId);
        } else {
          this.endFull(sessionId);
          this.savePosition();
        }
        this.pumpFulls();
      });
    }
  }

  private endFull(sessionId: string): void {
    if (!this.fullState.delete(sessionId)) return;
    this.fulls.delete(sessionId);
    this.fullProgress.done++;
    if (this.fulls.size === 0) {
      this.fullProgress = { done: 0, total: 0 };
      const drain = this.drainFulls;
      this.fullsDrained = null;
      this.drainFulls = null;
      drain?.();
    }
  }

  /** The session's row and its nodes (`ids`, or all), written in one transaction; true: the disk was full, try later. */
  private async readWhole(sessionId: string, ids: Set<string> | null): Promise<boolean> {
    const read = ids && this.source.nodesById ? this.source.nodesById(sessionId, [...ids]) : this.source.nodes(sessionId);
    const nodes = await read.catch(() => null);
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
      this.inTransaction(db, () => {
        db.prepare("DELETE FROM docs WHERE session_id = ? AND node_id = ''").run(sessionId);
        const own = sessionDocument(row);
        if (own) this.insert(db, own);
        for (const message of nodes) this.insert(db, nodeDocument(sessionId, message));
      });
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
    for (const seq of this.fulls.values()) low = Math.min(low, seq);
    return low - 1;
  }

  /** The feed position into meta, inside the caller's transaction (writePosition) or on its own. */
  private savePosition(db: SqlDatabase | null = this.db): void {
    if (!this.source.changes || !db) return;
    try {
      this.releaseFeed(this.writePosition(db));
    } catch (error) {
      // kept in memory: the next write saves it, and an older one only means reading more again
      if (!isDiskFull(error)) this.onError(error);
    }
  }

  private writePosition(db: SqlDatabase): number {
    const at = this.position();
    if (this.source.changes) db.prepare("INSERT INTO meta (key, value) VALUES ('feed_seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(at));
    return at;
  }

  /** Once the position is committed: the feed's segments wholly before it can go. */
  private releaseFeed(at: number): void {
    try {
      this.source.changes?.release(at);
    } catch {
      // segments left are read again at most
    }
  }

  /** A usable index of this version, closed cleanly after a finished rebuild; anything else is rebuilt. */
  private validate(db: SqlDatabase): boolean {
    const version = db.prepare('PRAGMA user_version').get()?.['user_version'];
    if (Number(version) !== SCHEMA_VERSION) return false;
    const complete = db.prepare("SELECT value FROM meta WHERE key = 'complete'").get()?.['value'];
    // Touches the FTS tables, so a file broken there fails here rather than on the first search.
    db.prepare('SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 1').get('"abc"');
    db.prepare('SELECT id FROM docs ORDER BY id DESC LIMIT 1').get();
    return complete === '1';
  }

  private configure(db: SqlDatabase): void {
    // Derived data: losing the last writes in a power cut only costs a rebuild (see validate).
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  }

  private removeFiles(): void {
    for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(this.path + suffix, { force: true });
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
    this.removeFiles();
    this.pendingOpen = openSqlite(this.path, this.driver).then((fresh) => {
      this.configure(fresh);
      fresh.exec(SCHEMA);
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
      if (generation !== this.generation || this.closed) return;
      const ids = this.source.sessionIds();
      this.progress = { done: 0, total: ids.length };
      this.setAutomerge(this.database(), 0);
      onProgress?.(this.status);
      for (let at = 0; at < ids.length; at += REBUILD_BATCH) {
        const slice = ids.slice(at, at + REBUILD_BATCH);
        const read = await Promise.all(slice.map((id) => this.source.nodes(id).catch(() => null)));
        if (generation !== this.generation || this.closed) return;
        const db = this.database();
        // Checked here, in the same tick as the write: a session deleted while it was read stays out.
        this.inTransaction(db, () => {
          slice.forEach((id, i) => {
            const row = this.source.row(id);
            const nodes = read[i];
            if (!row || !nodes) return;
            const own = sessionDocument(row);
            if (own) this.insert(db, own);
            for (const message of nodes) this.insert(db, nodeDocument(id, message));
          });
        });
        this.progress = { done: Math.min(ids.length, at + slice.length), total: ids.length };
        onProgress?.(this.status);
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (generation !== this.generation || this.closed) return;
      this.setAutomerge(this.database(), DEFAULT_AUTOMERGE);
      await this.mergeSegments(generation);
      if (generation !== this.generation || this.closed) return;
      this.unfinishedRebuild = false;
      if (this.source.changes) {
        // The position from here on; the file is marked whole by close() only (a kill meanwhile: rebuilt).
        const db = this.database();
        const at = db.transaction(() => this.writePosition(db));
        this.releaseFeed(at);
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

  /**
   * `work` in one transaction; the documents it added go into the FTS index in one statement at
   * the end. Several times faster than a trigger per row: the trigram index of a batch is built
   * once, and a rebuild of a million documents is a few such statements per second, not one
   * statement that would hold the event loop for the whole of it.
   */
  private inTransaction(db: SqlDatabase, work: () => void): void {
    db.transaction(() => {
      const before = Number(db.prepare('SELECT coalesce(max(id), 0) AS last FROM docs').get()!['last']);
      work();
      db.prepare('INSERT INTO fts (rowid, text) SELECT id, text FROM docs WHERE id > ?').run(before);
    });
  }

  /** While rebuilding: no merging after each batch; afterwards merged a slice at a time. */
  private setAutomerge(db: SqlDatabase, level: number): void {
    // FTS5 reads these settings from literals only (a bound value is "SQL logic error").
    db.exec(`INSERT INTO fts (fts, rank) VALUES ('automerge', ${Math.trunc(level)})`);
  }

  /** The segments a rebuild left, merged in slices between which the event loop runs. */
  private async mergeSegments(generation: number): Promise<void> {
    for (;;) {
      if (generation !== this.generation || this.closed || !this.db) return;
      const db = this.db;
      const before = Number(db.prepare('SELECT total_changes() AS n').get()!['n']);
      db.exec(`INSERT INTO fts (fts, rank) VALUES ('merge', ${MERGE_PAGES})`);
      // FTS5: 'merge' changes nothing once there is nothing left to merge.
      if (Number(db.prepare('SELECT total_changes() AS n').get()!['n']) - before <= 1) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private insert(db: SqlDatabase, doc: SearchDocument): void {
    db.prepare('INSERT INTO docs (session_id, node_id, anchor_id, kind, text) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
      doc.sessionId,
      doc.nodeId,
      doc.anchorId,
      doc.kind,
      doc.text,
    );
  }

  private write(batch: Operation[]): void {
    const db = this.database();
    // A session's document is written once a batch, from its row as it is now.
    const sessions = new Set<string>();
    let at = 0;
    this.inTransaction(db, () => {
      for (const operation of batch) {
        if (operation.type === 'node') this.insert(db, nodeDocument(operation.sessionId, operation.message));
        else if (operation.type === 'session') sessions.add(operation.sessionId);
        else {
          sessions.delete(operation.sessionId);
          db.prepare('DELETE FROM docs WHERE session_id = ?').run(operation.sessionId);
        }
      }
      for (const sessionId of sessions) {
        db.prepare("DELETE FROM docs WHERE session_id = ? AND node_id = ''").run(sessionId);
        const row = this.source.row(sessionId);
        const own = row && sessionDocument(row);
        if (own) this.insert(db, own);
      }
      at = this.writePosition(db);
    });
    this.releaseFeed(at);
  }
}

/** A session's hits next to each other, sessions in the order of their newest hit. */
function groupBySession(hits: SearchHit[]): SearchHit[] {
  const order = new Map<string, SearchHit[]>();
  for (const hit of hits) {
    const group = order.get(hit.sessionId);
    if (group) group.push(hit);
    else order.set(hit.sessionId, [hit]);
  }
  return [...order.values()].flat();
}
