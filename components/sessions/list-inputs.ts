import type { SessionListInput, SessionScope } from './session-types';
import { NO_ORGANISE_FILTER, organiseInput, type OrganiseFilter } from '@/components/organise/organise-filter';

/** Rows per page. Server prefetches and client hooks build the same inputs, hence the same query keys. */
export const SESSION_PAGE_SIZE = 100;

/** The sidebar: pinned sessions first, then the others by recency (archived ones stay out). */
export const SIDEBAR_PINNED: SessionListInput = { scope: 'active', pinned: true, limit: SESSION_PAGE_SIZE };
export const SIDEBAR_RECENT: SessionListInput = { scope: 'active', pinned: false, limit: SESSION_PAGE_SIZE };

export const SCOPES: readonly SessionScope[] = ['active', 'archived', 'all'];

export function parseScope(value: unknown): SessionScope {
  return SCOPES.includes(value as SessionScope) ? (value as SessionScope) : 'active';
}

/** One agent as the Chats page filters by it: its group as session.agents lists it (its name, whichever way its sessions came in). */
export type AgentFilter = string;

/** `?agent=<group>` of the Chats page's URL; anything else is no filter. */
export function parseAgentFilter(agent: unknown): AgentFilter | null {
  return typeof agent === 'string' && agent !== '' && agent.length <= 200 ? agent : null;
}

/** `?project=<id>` of the Chats page's URL (a project id's shape; the server checks it again); anything else is no filter. */
export function parseProjectFilter(project: unknown): string | null {
  return typeof project === 'string' && /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(project) ? project : null;
}

/** The Chats page's list of one scope and search, and of one agent and one project when filtered. */
export function chatsInput(scope: SessionScope, q: string, agent: AgentFilter | null = null, organise: OrganiseFilter = NO_ORGANISE_FILTER, projectId: string | null = null): SessionListInput {
  const query = q.trim().slice(0, 500);
  return {
    scope,
    ...(query ? { q: query } : {}),
    ...(agent ? { agent } : {}),
    ...(projectId ? { projectId } : {}),
    ...organiseInput(organise),
    limit: SESSION_PAGE_SIZE,
  };
}
