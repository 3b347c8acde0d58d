import type { RouterInputs, RouterOutputs } from '@/trpc/types';

export type SearchPage = RouterOutputs['session']['search'];
export type SearchHit = SearchPage['hits'][number];
export type SearchScope = NonNullable<RouterInputs['session']['search']['scope']>;

/** Where a hit opens: the session at that message (on its branch), or the session for a title hit. */
export function hitHref(hit: Pick<SearchHit, 'sessionId' | 'messageId'>): string {
  const base = `/sessions/${encodeURIComponent(hit.sessionId)}`;
  return hit.messageId ? `${base}?m=${encodeURIComponent(hit.messageId)}` : base;
}
