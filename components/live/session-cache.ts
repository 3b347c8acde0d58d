import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { SessionListData, SessionListInput, SessionPage, SessionRow } from '@/components/sessions/session-types';
import { findRow, mergePatch, placeRow, removeRow } from './session-list-patch';

export interface SessionCacheKeys {
  /** every session.list query, infinite or not: `trpc.session.list.pathKey()` */
  listPath: QueryKey;
  /** every session.get query: `trpc.session.get.pathKey()` */
  getPath: QueryKey;
}

type Patch = { id: string } & Partial<SessionRow>;

// tRPC's keys: [path, { input, type: 'infinite' | 'query' }].
function keyMeta(key: QueryKey): { input: SessionListInput; infinite: boolean } {
  const meta = (key[1] ?? {}) as { input?: SessionListInput; type?: string };
  return { input: meta.input ?? {}, infinite: meta.type === 'infinite' };
}

function getInput(key: QueryKey): string | undefined {
  return ((key[1] ?? {}) as { input?: { id?: string } }).input?.id;
}

/**
 * Writes rows into every cached session.list (each scope, filter and search of the sidebar and
 * the Chats page) and session.get query. The event stream and the optimistic changes both go
 * through here, so a change lands the same way whichever arrives first.
 */
export class SessionCache {
  constructor(
    private readonly client: QueryClient,
    private readonly keys: SessionCacheKeys,
  ) {}

  /** The row as any cached query knows it. */
  known(id: string): SessionRow | undefined {
    for (const [key, data] of this.client.getQueriesData<SessionListData | SessionPage>({ queryKey: this.keys.listPath })) {
      const row = findRow(this.asInfinite(key, data), id);
      if (row) return row;
    }
    for (const [key, data] of this.client.getQueriesData<SessionRow>({ queryKey: this.keys.getPath })) {
      if (data && getInput(key) === id) return data;
    }
    return undefined;
  }

  /** A whole row: placed (or removed) in every list by its filter and recency. */
  put(row: SessionRow): void {
    this.eachList((data, input) => placeRow(data, input, row));
    this.patchGet(row);
  }

  /** Changed fields of a row; false when no cached query knows the row (fetch it, then `put`). */
  patch(patch: Patch): boolean {
    const known = this.known(patch.id);
    if (!known) return false;
    const merged = mergePatch(known, patch);
    this.eachList((data, input) => placeRow(data, input, merged));
    this.patchGet(patch);
    return true;
  }

  remove(id: string): void {
    this.eachList((data) => removeRow(data, id));
  }

  private patchGet(patch: Patch): void {
    for (const [key, data] of this.client.getQueriesData<SessionRow>({ queryKey: this.keys.getPath })) {
      if (!data || getInput(key) !== patch.id) continue;
      this.client.setQueryData<SessionRow>(key, mergePatch(data, patch));
    }
  }

  private asInfinite(key: QueryKey, data: SessionListData | SessionPage | undefined): SessionListData | undefined {
    if (!data) return undefined;
    return keyMeta(key).infinite ? (data as SessionListData) : { pages: [data as SessionPage], pageParams: [null] };
  }

  private eachList(change: (data: SessionListData, input: SessionListInput) => SessionListData): void {
    for (const [key, data] of this.client.getQueriesData<SessionListData | SessionPage>({ queryKey: this.keys.listPath })) {
      const { input, infinite } = keyMeta(key);
      const current = this.asInfinite(key, data);
      if (!current) continue;
      const next = change(current, input);
      if (next === current) continue;
      this.client.setQueryData(key, infinite ? next : next.pages[0]);
    }
  }
}
