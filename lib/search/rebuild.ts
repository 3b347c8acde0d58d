/**
 * Filling an empty index from the sessions: a few sessions read per transaction, merging off while
 * it runs and then done in slices, the event loop free between batches. The index says whether the
 * fill is still wanted (`current`: not closed, not recreated meanwhile) and keeps the progress.
 */
import { nodeDocument, sessionDocument } from './documents.js';
import { DEFAULT_AUTOMERGE, inFtsTransaction, insertDocument, mergeSlice, setAutomerge } from './fts-file.js';
import type { SearchSource } from './search-types.js';
import type { SqlDatabase } from './sqlite.js';

/** sessions read between two rebuild transactions */
const REBUILD_BATCH = 25;

export interface FillOptions {
  database: () => SqlDatabase;
  current: () => boolean;
  onProgress: (progress: { done: number; total: number }) => void;
}

/** Every session into the index; false when it stopped because the fill was no longer wanted. */
export async function fillFromSessions(source: SearchSource, { database, current, onProgress }: FillOptions): Promise<boolean> {
  const ids = source.sessionIds();
  setAutomerge(database(), 0);
  onProgress({ done: 0, total: ids.length });
  for (let at = 0; at < ids.length; at += REBUILD_BATCH) {
    const slice = ids.slice(at, at + REBUILD_BATCH);
    const read = await Promise.all(slice.map((id) => source.nodes(id).catch(() => null)));
    if (!current()) return false;
    const db = database();
    // Checked here, in the same tick as the write: a session deleted while it was read stays out.
    inFtsTransaction(db, () => {
      slice.forEach((id, i) => {
        const row = source.row(id);
        const nodes = read[i];
        if (!row || !nodes) return;
        const own = sessionDocument(row);
        if (own) insertDocument(db, own);
        for (const message of nodes) insertDocument(db, nodeDocument(id, message));
      });
    });
    onProgress({ done: Math.min(ids.length, at + slice.length), total: ids.length });
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!current()) return false;
  setAutomerge(database(), DEFAULT_AUTOMERGE);
  // The segments the fill left, merged in slices between which the event loop runs.
  for (;;) {
    if (!current()) return false;
    if (!mergeSlice(database())) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
