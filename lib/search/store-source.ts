import type { SessionStore } from '../store/index.js';
import type { SearchSource } from './search-index.js';

const PAGE = 200;

/** A user's session store as what their index is built from and checks its hits against. */
export function storeSource(store: Pick<SessionStore, 'listSessions' | 'getRow' | 'getNodes'> & Partial<Pick<SessionStore, 'changes' | 'getNodesById' | 'listNotes'>>): SearchSource {
  return {
    // The feed every write of the store lands in: the index follows it and reads on from it at open.
    ...(store.changes ? { changes: store.changes } : {}),
    sessionIds() {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const page = store.listSessions({ scope: 'all', limit: PAGE, cursor });
        for (const row of page.rows) ids.push(row.id);
        cursor = page.nextCursor;
      } while (cursor);
      // The list is newest first; the rebuild writes the oldest first, so row ids follow recency.
      return ids.reverse();
    },
    row: (sessionId) => store.getRow(sessionId),
    nodes: (sessionId) => store.getNodes(sessionId),
    ...(store.listNotes ? { notes: (sessionId: string) => store.listNotes!(sessionId) } : {}),
    ...(store.getNodesById ? { nodesById: (sessionId: string, ids: readonly string[]) => store.getNodesById!(sessionId, ids) } : {}),
  };
}
