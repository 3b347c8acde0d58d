import { NO_TAGS, normaliseTagName, stateOf } from './tags.js';
import { InvalidInputError } from '../errors.js';
import type { SessionState, TagFilter } from '../types.js';

/** `tag:<name>` and `state:<state>` words out of a query; the rest stays the text to find. */
export function parseOrganiseQuery(q: string): { text: string; tags: string[]; state: SessionState | 'none' | undefined } {
  const tags: string[] = [];
  let state: SessionState | 'none' | undefined;
  const rest: string[] = [];
  for (const word of q.split(/\s+/u)) {
    const lower = word.toLowerCase();
    if (lower.startsWith('tag:') && word.length > 4) tags.push(normaliseTagName(word.slice(4)));
    else if (lower.startsWith('state:') && word.length > 6) state = parseStateWord(lower.slice(6));
    else if (word !== '') rest.push(word);
  }
  return { text: rest.join(' '), tags, state };
}

function parseStateWord(word: string): SessionState | 'none' {
  if (word === 'none') return 'none';
  // "needs-review" as the label says it, and the stored name
  const state = stateOf(word === 'needs-review' ? 'review' : word);
  if (!state) throw new InvalidInputError(`state: is one of none, active, review, done`);
  return state;
}

/** A test of one entry's tags and state, or null when the filter asks nothing of them. */
export function tagMatcher(filter: TagFilter): ((tags: unknown, state: unknown) => boolean) | null {
  const wanted = filter.tags?.length ? [...new Set(filter.tags.map(normaliseTagName))] : null;
  const untagged = filter.untagged === true;
  const state = filter.state;
  if (!wanted && !untagged && state === undefined) return null;
  const any = filter.tagMode === 'any';
  return (rawTags, rawState) => {
    const tags = (Array.isArray(rawTags) ? rawTags : NO_TAGS) as readonly string[];
    if (state !== undefined && (state === 'none' ? rawState != null : rawState !== state)) return false;
    if (untagged && !wanted) return tags.length === 0;
    if (!wanted) return true;
    // "untagged" beside tags widens an any-of: the chosen tags or none at all
    if (untagged && any && tags.length === 0) return true;
    if (tags.length === 0) return false;
    if (any) {
      for (const tag of wanted) if (tags.includes(tag)) return true;
      return false;
    }
    for (const tag of wanted) if (!tags.includes(tag)) return false;
    return true;
  };
}

/**
 * A list filter whose query's `tag:`/`state:` words became filter fields: tags from the query
 * join the filter's (all of, unless it said any), a state word wins over none.
 */
export function withQueryWords<F extends TagFilter & { q?: string }>(filter: F): F {
  if (!filter.q || !/(^|\s)(tag|state):/iu.test(filter.q)) return filter;
  const { text, tags, state } = parseOrganiseQuery(filter.q);
  return {
    ...filter,
    q: text,
    tags: tags.length > 0 ? [...(filter.tags ?? []), ...tags] : filter.tags,
    state: state ?? filter.state,
  };
}
