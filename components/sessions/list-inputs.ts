import type { SessionListInput, SessionScope } from './session-types';

/** Rows per page. Server prefetches and client hooks build the same inputs, hence the same query keys. */
export const SESSION_PAGE_SIZE = 100;

/** The sidebar: pinned sessions first, then the others by recency (archived ones stay out). */
export const SIDEBAR_PINNED: SessionListInput = { scope: 'active', pinned: true, limit: SESSION_PAGE_SIZE };
export const SIDEBAR_RECENT: SessionListInput = { scope: 'active', pinned: false, limit: SESSION_PAGE_SIZE };

export const SCOPES: readonly SessionScope[] = ['active', 'archived', 'all'];

export function parseScope(value: unknown): SessionScope {
  return SCOPES.includes(value as SessionScope) ? (value as SessionScope) : 'active';
}

/** The Chats page's list of one scope and search. */
export function chatsInput(scope: SessionScope, q: string): SessionListInput {
  const query = q.trim().slice(0, 500);
  return query ? { scope, q: query, limit: SESSION_PAGE_SIZE } : { scope, limit: SESSION_PAGE_SIZE };
}
