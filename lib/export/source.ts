import { bookmarksOf, type SessionStore } from '../store/index.js';

/** What bookmarks are read through (DESIGN §16): a whole user's store. */
type BookmarkSource = Pick<SessionStore, 'stateDir' | 'events' | 'getRow' | 'getNodesById' | 'countSessions'>;

/** What an export reads: the store's public surface, nothing below it. */
export type ExportSource = Pick<SessionStore, 'getSession' | 'getBranch' | 'listBranches' | 'listNodes' | 'bundle'> &
  /** notes and bookmarks (DESIGN §16): absent on a source without them, which exports none */
  Partial<Pick<SessionStore, 'listNotes'>> &
  Partial<BookmarkSource>;

function hasBookmarks(source: ExportSource): source is ExportSource & BookmarkSource {
  return typeof source.stateDir === 'string' && source.events !== undefined && typeof source.getRow === 'function' && typeof source.getNodesById === 'function' && typeof source.countSessions === 'function';
}

/** The user's bookmarks of this session's messages, newest first: `{messageId, createdAt}` (ms). */
export function sessionBookmarks(source: ExportSource, sessionId: string): { messageId: string; createdAt: number }[] {
  if (!hasBookmarks(source)) return [];
  return bookmarksOf(source).list(sessionId).map(({ messageId, createdAt }) => ({ messageId, createdAt }));
}

/** Every node of a session by seq, one page of the store's at a time (never the whole list). */
export async function* nodesOf(source: ExportSource, sessionId: string) {
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<ExportSource['listNodes']>> = await source.listNodes(sessionId, { limit: 200, cursor });
    yield* page.messages;
    cursor = page.nextCursor;
  } while (cursor);
}
