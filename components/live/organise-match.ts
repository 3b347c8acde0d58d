import type { SessionListInput, SessionRow } from '@/components/sessions/session-types';

/**
 * Whether a row passes a list input's tags and state, as the server's filter (lib/store/organise/
 * tag-filter.ts) decides it, so a live change moves the row in or out of a filtered list at once.
 * `tag:`/`state:` words of a query count too; the rest of the query is returned for the text test.
 */
export function organiseMatch(input: SessionListInput, row: SessionRow): { matches: boolean; text: string } {
  const words = (input.q ?? '').split(/\s+/u).filter((word) => word !== '');
  const queryTags = words.filter((word) => /^tag:./iu.test(word)).map((word) => word.slice(4).toLowerCase());
  const stateWord = words.findLast((word) => /^state:./iu.test(word))?.slice(6).toLowerCase();
  const text = words.filter((word) => !/^(tag|state):./iu.test(word)).join(' ');
  const wanted = [...(input.tags ?? []).map((tag) => tag.trim().toLowerCase()), ...queryTags];
  const state = stateWord === 'needs-review' ? 'review' : (stateWord ?? input.state);
  if (state !== undefined && (state === 'none' ? row.state !== null : row.state !== state)) return { matches: false, text };
  const tags = row.tags ?? [];
  if (input.untagged && wanted.length === 0) return { matches: tags.length === 0, text };
  if (wanted.length === 0) return { matches: true, text };
  if (input.tagMode === 'any') {
    return { matches: (input.untagged === true && tags.length === 0) || wanted.some((tag) => tags.includes(tag)), text };
  }
  // the query's tags join the filter's as all-of
  return { matches: wanted.every((tag) => tags.includes(tag)), text };
}
