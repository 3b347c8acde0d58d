/**
 * Character counts in the seeds are Python's: Unicode code points. Never cut inside a
 * surrogate pair, so never use String.prototype.slice on user text.
 */
export function codePointLength(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

export function sliceCodePoints(text: string, end: number): string {
  if (text.length <= end) return text; // UTF-16 length bounds the code point count from above
  let out = '';
  let count = 0;
  for (const ch of text) {
    if (count === end) break;
    out += ch;
    count++;
  }
  return out;
}

/** Whether `text` has more than `max` code points, counting no further than that (a preview of a 32 MiB message looks at its start only). */
function longerThan(text: string, max: number): boolean {
  if (text.length <= max) return false; // UTF-16 length bounds the code point count from above
  let count = 0;
  for (const _ of text) if (++count > max) return true;
  return false;
}

/** Keep `max` code points; longer text is cut to `keep` and given an ellipsis. */
export function truncateWithEllipsis(text: string, max: number, keep: number): string {
  return longerThan(text, max) ? `${sliceCodePoints(text, keep)}…` : text;
}

/**
 * Text as a commit message may hold it: line breaks as `\n`, tabs kept, NUL and every other
 * control character dropped (git fsck refuses a NUL in a commit; the rest garbles a terminal).
 * Node files keep the exact text; only the message is cleaned.
 */
export function cleanCommitMessage(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

const FIRST_LINE_MAX = 120;

/** The first non-empty line of a text, trimmed and bounded. */
export function firstLineOf(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  const trimmed = line.trim();
  const cut = sliceCodePoints(trimmed, FIRST_LINE_MAX);
  return cut.length < trimmed.length ? `${cut}…` : cut;
}
