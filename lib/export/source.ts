import type { SessionStore } from '../store/index.js';

/** What an export reads: the store's public surface, nothing below it. */
export type ExportSource = Pick<SessionStore, 'getSession' | 'getBranch' | 'listBranches' | 'listNodes' | 'bundle'> &
  /** notes (DESIGN §16): absent on a source without them, which exports none */
  Partial<Pick<SessionStore, 'listNotes'>>;

/** Every node of a session by seq, one page of the store's at a time (never the whole list). */
export async function* nodesOf(source: ExportSource, sessionId: string) {
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<ExportSource['listNodes']>> = await source.listNodes(sessionId, { limit: 200, cursor });
    yield* page.messages;
    cursor = page.nextCursor;
  } while (cursor);
}
