import type { SessionListInput } from '@/components/sessions/session-types';
import type { SessionStateName } from './tag-look';

/** The Chats page's tag and state filter (DESIGN §16), kept in its URL. */
export interface OrganiseFilter {
  tags: string[];
  tagMode: 'all' | 'any';
  untagged: boolean;
  state: SessionStateName | 'none' | null;
}

export const NO_ORGANISE_FILTER: OrganiseFilter = { tags: [], tagMode: 'all', untagged: false, state: null };
const STATES = ['active', 'review', 'done', 'none'] as const;

/** `?tag=a&tag=b&match=any&untagged=1&state=review`; anything malformed is no filter. */
export function parseOrganiseFilter(params: Record<string, string | string[] | undefined>): OrganiseFilter {
  const raw = params.tag;
  const tags = (Array.isArray(raw) ? raw : raw ? [raw] : [])
    .map((tag) => tag.trim().toLowerCase())
    .filter((tag) => tag !== '' && tag.length <= 40 && !/[\s,]/u.test(tag))
    .slice(0, 32);
  const state = STATES.find((each) => each === params.state) ?? null;
  return { tags: [...new Set(tags)], tagMode: params.match === 'any' ? 'any' : 'all', untagged: params.untagged === '1', state };
}

export function organiseParams(filter: OrganiseFilter, params: URLSearchParams): void {
  for (const tag of filter.tags) params.append('tag', tag);
  if (filter.tagMode === 'any' && filter.tags.length > 0) params.set('match', 'any');
  if (filter.untagged) params.set('untagged', '1');
  if (filter.state) params.set('state', filter.state);
}

/** The session.list fields of a filter; nothing for what it does not ask (so the query key stays the old one). */
export function organiseInput(filter: OrganiseFilter): Partial<SessionListInput> {
  return {
    ...(filter.tags.length > 0 ? { tags: filter.tags } : {}),
    ...(filter.tags.length > 0 && filter.tagMode === 'any' ? { tagMode: 'any' as const } : {}),
    ...(filter.untagged ? { untagged: true } : {}),
    ...(filter.state ? { state: filter.state } : {}),
  };
}
