import { diffWordsWithSpace } from 'diff';

/** A run of text both sides share, or that only the first (`removed`) or second (`added`) has. */
export interface WordChange {
  text: string;
  change: 'same' | 'added' | 'removed';
}

/**
 * Past this many characters a side, or this many edits, two messages are shown as one removed and
 * one added run: Myers' diff grows with the product of the differences, and a compare page must
 * answer within its bound however large or unlike two replies are.
 */
export const WORD_DIFF_MAX_CHARS = 100_000;
const WORD_DIFF_MAX_EDITS = 2_000;

function wholly(before: string, after: string): WordChange[] {
  const out: WordChange[] = [];
  if (before !== '') out.push({ text: before, change: 'removed' });
  if (after !== '') out.push({ text: after, change: 'added' });
  return out;
}

/** Word-level differences (jsdiff's words with whitespace kept) from `before` to `after`. */
export function wordDiff(before: string, after: string): WordChange[] {
  if (before === after) return before === '' ? [] : [{ text: before, change: 'same' }];
  if (before.length > WORD_DIFF_MAX_CHARS || after.length > WORD_DIFF_MAX_CHARS) return wholly(before, after);
  const changes = diffWordsWithSpace(before, after, { maxEditLength: WORD_DIFF_MAX_EDITS });
  if (!changes) return wholly(before, after);
  return changes.map((part) => ({ text: part.value, change: part.added ? 'added' : part.removed ? 'removed' : 'same' }));
}
