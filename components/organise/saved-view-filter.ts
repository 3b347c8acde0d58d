import type { RouterInputs } from '@/trpc/types';
import type { SessionScope } from '@/components/sessions/session-types';
import { organiseInput, organiseParams, type OrganiseFilter } from './organise-filter';

/** What view.save keeps: the Chats page's filter as session.list takes it. */
export type SavedViewFilter = RouterInputs['view']['save']['filter'];

/** The Chats page's current filter as a saved view's. */
export function viewFilterOf(scope: SessionScope, q: string, agent: string | null, organise: OrganiseFilter, projectId: string | null = null): SavedViewFilter {
  return { ...(scope !== 'active' ? { scope } : {}), ...(q.trim() ? { q: q.trim() } : {}), ...(agent ? { agent } : {}), ...(projectId ? { projectId } : {}), ...organiseInput(organise) };
}

/** Where a saved view opens: the Chats page with its filter in the URL, as the page keeps it. */
export function viewHref(filter: SavedViewFilter): string {
  const params = new URLSearchParams();
  if (filter.scope && filter.scope !== 'active') params.set('scope', filter.scope);
  if (filter.q) params.set('q', filter.q);
  if (filter.agent) params.set('agent', filter.agent);
  if (filter.projectId) params.set('project', filter.projectId);
  organiseParams({ tags: filter.tags ?? [], tagMode: filter.tagMode ?? 'all', untagged: filter.untagged ?? false, state: filter.state ?? null }, params);
  const query = params.toString();
  return query ? `/chats?${query}` : '/chats';
}
