/**
 * A person's search text as the index's query: whitespace-separated terms, all required. Terms of
 * three characters or more go to FTS5 (the trigram tokenizer needs three); shorter ones, common in
 * Chinese, are matched as substrings instead.
 */
import { SearchInputError } from './errors.js';

export const MAX_QUERY_CHARS = 500;
/** more terms than this add nothing a person means and cost a scan each */
export const MAX_TERMS = 16;
const TRIGRAM = 3;

export interface ParsedQuery {
  /** every term, as typed (case kept), in order */
  terms: string[];
  /** the FTS5 MATCH expression of the long terms, or null when every term is short */
  match: string | null;
  /** terms too short for the trigram index, lower-cased */
  short: string[];
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** A term as one FTS5 string: quotes doubled, so no operator or column filter can be smuggled in. */
function ftsString(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

export function parseQuery(text: string): ParsedQuery {
  if (codePoints(text) > MAX_QUERY_CHARS) throw new SearchInputError(`the query is longer than ${MAX_QUERY_CHARS} characters`);
  // Control characters separate words: nobody searches for them, and SQLite ends a string at a NUL.
  const terms = [...new Set(text.normalize('NFC').replace(/\p{Cc}/gu, ' ').split(/\s+/u).filter((term) => term.length > 0))];
  if (terms.length === 0) throw new SearchInputError('the query is empty');
  if (terms.length > MAX_TERMS) throw new SearchInputError(`at most ${MAX_TERMS} words a query`);
  const long = terms.filter((term) => codePoints(term) >= TRIGRAM);
  const short = terms.filter((term) => codePoints(term) < TRIGRAM).map((term) => term.toLowerCase());
  return { terms, match: long.length > 0 ? long.map(ftsString).join(' AND ') : null, short };
}

/** Whether `text` holds every short term (case-insensitively, as the trigram index matches). */
export function holdsShortTerms(text: string, short: readonly string[]): boolean {
  if (short.length === 0) return true;
  const lower = text.toLowerCase();
  return short.every((term) => lower.includes(term));
}
