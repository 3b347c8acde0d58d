/**
 * The change feed's records as the index's writes (DESIGN §3): a live notice becomes one write; the
 * records missed while the file was closed become one write per session they name.
 */
import type { ChangeNotice, ChangeRecord, Message, SessionRow } from '../store/index.js';
import { nodeDocument, noteDocument, sessionDocument } from './documents.js';
import { insertDocument, readFeedPosition } from './fts-file.js';
import type { SearchSource } from './search-types.js';
import type { SqlDatabase } from './sqlite.js';

/** `seq`: the change-feed record it comes from (0 without a feed) */
export type Operation =
  | { type: 'node'; seq: number; sessionId: string; message: Message }
  | { type: 'session'; seq: number; sessionId: string }
  | { type: 'delete'; seq: number; sessionId: string }
  /** read the session again: whole (created, imported, named on catching up), or these nodes (`nodeIds`) */
  | { type: 'full'; seq: number; sessionId: string; nodeIds?: string[] };

/** A live notice: its message when it carries it, else the session (or those nodes) read again. */
export function operationOfNotice({ record, message }: ChangeNotice, canReadById: boolean): Operation {
  const { seq, sessionId } = record;
  if (record.kind === 'nodes' && message) return { type: 'node', seq, sessionId, message };
  if (record.kind === 'nodes' && record.nodeIds && canReadById) return { type: 'full', seq, sessionId, nodeIds: record.nodeIds };
  if (record.kind === 'nodes' || record.kind === 'created') return { type: 'full', seq, sessionId };
  if (record.kind === 'session') return { type: 'session', seq, sessionId };
  return { type: 'delete', seq, sessionId };
}

/** The feed's records since the saved position, as writes: each session named read again once. */
export function catchUpOperations(records: ChangeRecord[], exists: (sessionId: string) => boolean): Operation[] {
  const sessions = new Map<string, { first: number; deleted: number | null; whole: boolean; row: boolean }>();
  for (const record of records) {
    const seen = sessions.get(record.sessionId) ?? { first: record.seq, deleted: null, whole: false, row: false };
    if (record.kind === 'deleted') seen.deleted ??= record.seq;
    else if (record.kind === 'session') seen.row = true;
    else seen.whole = true;
    sessions.set(record.sessionId, seen);
  }
  const operations: Operation[] = [];
  for (const [sessionId, seen] of sessions) {
    if (seen.deleted !== null) operations.push({ type: 'delete', seq: seen.deleted, sessionId });
    const present = exists(sessionId);
    if (present && (seen.whole || seen.deleted !== null)) operations.push({ type: 'full', seq: seen.first, sessionId });
    else if (present && seen.row) operations.push({ type: 'session', seq: seen.first, sessionId });
  }
  return operations;
}

/** A batch of writes into the file, inside the caller's transaction (`node`, `session`, `delete`; `full` is read apart). */
export function applyOperations(db: SqlDatabase, batch: Operation[], rowOf: (sessionId: string) => SessionRow | null): void {
  // A session's document is written once a batch, from its row as it is now.
  const sessions = new Set<string>();
  for (const operation of batch) {
    if (operation.type === 'node') insertDocument(db, nodeDocument(operation.sessionId, operation.message));
    else if (operation.type === 'session') sessions.add(operation.sessionId);
    else {
      sessions.delete(operation.sessionId);
      db.prepare('DELETE FROM docs WHERE session_id = ?').run(operation.sessionId);
    }
  }
  for (const sessionId of sessions) {
    db.prepare("DELETE FROM docs WHERE session_id = ? AND node_id = ''").run(sessionId);
    const row = rowOf(sessionId);
    const own = row && sessionDocument(row);
    if (own) insertDocument(db, own);
  }
}

/** A session read again: its own document anew and its nodes (already there: kept), inside the caller's transaction. */
export function writeSessionDocuments(
  db: SqlDatabase,
  sessionId: string,
  row: SessionRow,
  nodes: Message[],
  notes: Array<{ messageId: string | null; text: string }> | null = null,
): void {
  if (notes) {
    // notes change in place: theirs are written anew, not kept like a message's
    db.prepare("DELETE FROM docs WHERE session_id = ? AND node_id LIKE 'note:%'").run(sessionId);
    for (const note of notes) insertDocument(db, noteDocument(sessionId, note));
  }
  db.prepare("DELETE FROM docs WHERE session_id = ? AND node_id = ''").run(sessionId);
  const own = sessionDocument(row);
  if (own) insertDocument(db, own);
  for (const message of nodes) insertDocument(db, nodeDocument(sessionId, message));
}

/** What the feed still holds after the position saved in the file: null when none is saved or the feed no longer has it. */
export function recordsAfterPosition(db: SqlDatabase, changes: NonNullable<SearchSource['changes']>): ChangeRecord[] | null {
  const at = readFeedPosition(db);
  return Number.isSafeInteger(at) && at >= 0 ? changes.readAfter(at) : null;
}

/** Once the position is committed: the feed's segments wholly before it can go. */
export function releaseFeed(source: SearchSource, at: number): void {
  try {
    source.changes?.release(at);
  } catch {
    // segments left are read again at most
  }
}
