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

/** One writer of sessions, as the Chats page filters by it (both fields: `main` writes from the web and the API). */
export interface AgentFilter {
  agentId: string;
  source: string;
}

/** `?agent=<id>&source=<source>` of the Chats page's URL; anything else is no filter. */
export function parseAgentFilter(agent: unknown, source: unknown): AgentFilter | null {
  if (typeof agent !== 'string' || agent === '' || agent.length > 200) return null;
  return { agentId: agent, source: typeof source === 'string' ? source.slice(0, 200) : '' };
}

/** The Chats page's list of one scope and search, and of one agent when filtered. */
export function chatsInput(scope: SessionScope, q: string, agent: AgentFilter | null = null): SessionListInput {
  const query = q.trim().slice(0, 500);
  return {
    scope,
    ...(query ? { q: query } : {}),
    ...(agent ? { agentId: agent.agentId, source: agent.source } : {}),
    limit: SESSION_PAGE_SIZE,
  };
}
