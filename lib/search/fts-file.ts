/**
 * The index file's tables and the statements that write them, as plain functions of one open
 * database: the schema, a document written, a batch made one FTS insert, and merging in slices.
 */
import { rmSync } from 'node:fs';
import type { SearchDocument } from './documents.js';
import { openSqlite, type SqlDatabase, type SqliteDriver } from './sqlite.js';

/**
 * Bumped when the tables change: a file of another version is rebuilt. 2: the change feed's
 * position (meta feed_seq); a version-1 file may lack imported messages (issue 28), so it is rebuilt.
 */
export const SCHEMA_VERSION = 3;
/** FTS5's own default; a rebuild turns merging off and back on */
export const DEFAULT_AUTOMERGE = 4;
/** pages of segments merged per slice after a rebuild */
const MERGE_PAGES = 500;

export const SCHEMA = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE docs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    node_id TEXT NOT NULL,
    anchor_id TEXT,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    UNIQUE (session_id, node_id)
  );
  CREATE VIRTUAL TABLE fts USING fts5(text, content='docs', content_rowid='id', tokenize='trigram');
  CREATE TRIGGER docs_ad AFTER DELETE ON docs BEGIN
    INSERT INTO fts(fts, rowid, text) SELECT 'delete', old.id, old.text WHERE old.id <= (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'fts_through');
  END;
  INSERT INTO meta (key, value) VALUES ('complete', '0');
  INSERT INTO meta (key, value) VALUES ('fts_through', '0');
  PRAGMA user_version = ${SCHEMA_VERSION};
`;

/**
 * `work` in one transaction; the documents it added go into the FTS index in one statement at
 * the end. Several times faster than a trigger per row: the trigram index of a batch is built
 * once, and a rebuild of a million documents is a few such statements per second, not one
 * statement that would hold the event loop for the whole of it.
 */
export function inFtsTransaction(db: SqlDatabase, work: () => void): void {
  db.transaction(() => {
    work();
    // Ids only grow (AUTOINCREMENT) and FTS5 has every document up to fts_through: the ones after
    // it are this batch's. The delete trigger tells FTS5 only of those it has (a document added
    // and deleted in one batch never reached it; telling FTS5 of text it lacks corrupts it).
    db.prepare("INSERT INTO fts (rowid, text) SELECT id, text FROM docs WHERE id > (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'fts_through')").run();
    db.prepare("UPDATE meta SET value = (SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'docs') WHERE key = 'fts_through'").run();
  });
}

/** While rebuilding: no merging after each batch; afterwards merged a slice at a time. */
export function setAutomerge(db: SqlDatabase, level: number): void {
  // FTS5 reads these settings from literals only (a bound value is "SQL logic error").
  db.exec(`INSERT INTO fts (fts, rank) VALUES ('automerge', ${Math.trunc(level)})`);
}

/** One slice of merging (FTS5 'merge'): false once there was nothing left to merge. */
export function mergeSlice(db: SqlDatabase): boolean {
  const before = Number(db.prepare('SELECT total_changes() AS n').get()!['n']);
  db.exec(`INSERT INTO fts (fts, rank) VALUES ('merge', ${MERGE_PAGES})`);
  // FTS5: 'merge' changes nothing once there is nothing left to merge.
  return Number(db.prepare('SELECT total_changes() AS n').get()!['n']) - before > 1;
}

export function insertDocument(db: SqlDatabase, doc: SearchDocument): void {
  db.prepare('INSERT INTO docs (session_id, node_id, anchor_id, kind, text) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING').run(
    doc.sessionId,
    doc.nodeId,
    doc.anchorId,
    doc.kind,
    doc.text,
  );
}

/** A usable index of this version, closed cleanly after a finished rebuild; anything else is rebuilt. */
export function validateIndexFile(db: SqlDatabase): boolean {
  const version = db.prepare('PRAGMA user_version').get()?.['user_version'];
  if (Number(version) !== SCHEMA_VERSION) return false;
  const complete = db.prepare("SELECT value FROM meta WHERE key = 'complete'").get()?.['value'];
  // Touches the FTS tables, so a file broken there fails here rather than on the first search.
  db.prepare('SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 1').get('"abc"');
  db.prepare('SELECT id FROM docs ORDER BY id DESC LIMIT 1').get();
  return complete === '1';
}

export function configureIndexFile(db: SqlDatabase): void {
  // Derived data: losing the last writes in a power cut only costs a rebuild (see validate).
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
}

/** The file and SQLite's files beside it. */
export function removeIndexFiles(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(path + suffix, { force: true });
}

/** Whole: closed cleanly after a finished rebuild (validate reads it); not whole while in use. */
export function markWhole(db: SqlDatabase, whole: boolean): void {
  db.prepare("UPDATE meta SET value = ? WHERE key = 'complete'").run(whole ? '1' : '0');
}

/** The change feed's position saved in the file: every record up to it is in; -1 when none is saved. */
export function readFeedPosition(db: SqlDatabase): number {
  return Number(db.prepare("SELECT value FROM meta WHERE key = 'feed_seq'").get()?.['value'] ?? -1);
}

export function writeFeedPosition(db: SqlDatabase, at: number): void {
  db.prepare("INSERT INTO meta (key, value) VALUES ('feed_seq', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(String(at));
}

/** The file (and SQLite's beside it) removed, and an empty index of this version opened in its place. */
export async function openEmptyIndexFile(path: string, driver: SqliteDriver | undefined): Promise<SqlDatabase> {
  removeIndexFiles(path);
  const fresh = await openSqlite(path, driver);
  configureIndexFile(fresh);
  fresh.exec(SCHEMA);
  return fresh;
}
