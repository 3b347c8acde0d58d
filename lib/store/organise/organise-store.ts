import type { StoreEvents } from '../events.js';
import type { ListFilter, Message, SessionRow } from '../types.js';

/**
 * What bookmarks and saved views need of a user's SessionStore: its public surface only, so
 * they sit beside it (in their own files) without an operation of their own in session-store.ts.
 */
export interface OrganiseStore {
  readonly stateDir: string;
  readonly events: StoreEvents;
  getRow(id: string): SessionRow | null;
  getNodesById(sessionId: string, ids: readonly string[]): Promise<Message[]>;
  countSessions(filter?: ListFilter): number;
}

/** One value per open store, made at its first use (the store's files are read once). */
export function perStore<T>(make: (store: OrganiseStore) => T): (store: OrganiseStore) => T {
  const made = new WeakMap<OrganiseStore, T>();
  return (store) => {
    let value = made.get(store);
    if (value === undefined) made.set(store, (value = make(store)));
    return value;
  };
}
