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
const WORD_DIFF_MAX_EDITS = 500;
/** and this long for one pair, whatever the edits (jsdiff gives up and answers undefined) */
const WORD_DIFF_MAX_MS = 100;

function wholly(before: string, after: string): WordChange[] {
  const out: WordChange[] = [];
  if (before !== '') out.push({ text: before, change: 'removed' });
  if (after !== '') out.push({ text: after, change: 'added' });
  return out;
}

const SPACE = /\s/;

/**
 * How many characters both texts share at the start and at the end, cut back to whitespace so no
 * word is split: jsdiff then tokenises only the part that differs, which keeps thousands of long,
 * nearly equal replies (retries) cheap to compare.
 */
function sharedEdges(before: string, after: string): { head: number; tail: number } {
  const most = Math.min(before.length, after.length);
  let head = 0;
  while (head < most && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  while (head > 0 && !SPACE.test(before[head - 1]!)) head--;
  let tail = 0;
  while (tail < most - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail)) tail++;
  while (tail > 0 && !SPACE.test(before[before.length - tail]!)) tail--;
  return { head, tail };
}

/** Word-level differences (jsdiff's words with whitespace kept) from `before` to `after`. */
export function wordDiff(before: string, after: string): WordChange[] {
  if (before === after) return before === '' ? [] : [{ text: before, change: 'same' }];
  if (before.length > WORD_DIFF_MAX_CHARS || after.length > WORD_DIFF_MAX_CHARS) return wholly(before, after);
  const { head, tail } = sharedEdges(before, after);
  const middleBefore = before.slice(head, before.length - tail);
  const middleAfter = after.slice(head, after.length - tail);
  const changes = diffWordsWithSpace(middleBefore, middleAfter, { maxEditLength: WORD_DIFF_MAX_EDITS, timeout: WORD_DIFF_MAX_MS });
  const middle: WordChange[] = changes
    ? changes.map((part) => ({ text: part.value, change: part.added ? 'added' : part.removed ? 'removed' : 'same' }))
    : wholly(middleBefore, middleAfter);
  const out: WordChange[] = head > 0 ? [{ text: before.slice(0, head), change: 'same' }] : [];
  for (const part of tail > 0 ? [...middle, { text: before.slice(before.length - tail), change: 'same' as const }] : middle) {
    const last = out[out.length - 1];
    // The shared edges join the middle's own shared runs: one run per stretch, as jsdiff alone gives.
    if (last && last.change === 'same' && part.change === 'same') last.text += part.text;
    else if (part.text !== '') out.push({ ...part });
  }
  return out;
}
