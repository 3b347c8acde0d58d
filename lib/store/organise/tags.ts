import { InvalidInputError } from '../errors.js';
import { SESSION_STATES, type SessionState } from '../types.js';

/** DESIGN §16: a tag's name is at most this many characters. */
export const MAX_TAG_CHARS = 40;
/** More than this on one session is a list nobody reads; refused rather than cut. */
export const MAX_TAGS_PER_SESSION = 32;

export const SESSION_STATE_LABELS: Record<SessionState, string> = { active: 'Active', review: 'Needs review', done: 'Done' };

/** One frozen empty list shared by every untagged entry: 100,000 rows need no array each. */
export const NO_TAGS: readonly string[] = Object.freeze([]);

/**
 * A tag's name as stored: trimmed and lower-cased (so `tag:Bug` and `tag:bug` are one tag), no
 * white space or comma inside (a `tag:<name>` query ends at a space), ≤ 40 characters.
 */
export function normaliseTagName(raw: unknown): string {
  if (typeof raw !== 'string') throw new InvalidInputError('a tag must be a string');
  const name = raw.trim().toLowerCase();
  if (name === '') throw new InvalidInputError('a tag must not be empty');
  if ([...name].length > MAX_TAG_CHARS) throw new InvalidInputError(`a tag is at most ${MAX_TAG_CHARS} characters`);
  if (/[\s,]/u.test(name)) throw new InvalidInputError('a tag has no spaces or commas');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/u.test(name)) throw new InvalidInputError('a tag has no control characters');
  return name;
}

/** A session's tags as stored: each normalised, once, sorted (so equal sets compare equal). */
export function normaliseTags(raw: unknown): string[] {
  if (!Array.isArray(raw)) throw new InvalidInputError('tags must be a list');
  const names = [...new Set(raw.map(normaliseTagName))].sort();
  if (names.length > MAX_TAGS_PER_SESSION) throw new InvalidInputError(`a session has at most ${MAX_TAGS_PER_SESSION} tags`);
  return names;
}

export function normaliseState(raw: unknown): SessionState | null {
  if (raw === null) return null;
  if (typeof raw === 'string' && (SESSION_STATES as readonly string[]).includes(raw)) return raw as SessionState;
  throw new InvalidInputError(`state must be null or one of ${SESSION_STATES.join(', ')}`);
}

/** Tags as a registry entry or meta.json holds them; anything else (an older or foreign writer) reads as none. */
export function tagsOf(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0) return NO_TAGS;
  return value.filter((tag): tag is string => typeof tag === 'string');
}

export function stateOf(value: unknown): SessionState | null {
  return typeof value === 'string' && (SESSION_STATES as readonly string[]).includes(value) ? (value as SessionState) : null;
}

/** `tags` with `add` added and `remove` taken out, normalised (a bulk edit of many sessions). */
export function editTags(tags: readonly string[], add: readonly string[], remove: readonly string[]): string[] {
  const removed = new Set(remove.map(normaliseTagName));
  return normaliseTags([...tags.filter((tag) => !removed.has(tag)), ...add]);
}
