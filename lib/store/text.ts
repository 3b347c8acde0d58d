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

/** Keep `max` code points; longer text is cut to `keep` and given an ellipsis. */
export function truncateWithEllipsis(text: string, max: number, keep: number): string {
  return codePointLength(text) > max ? `${sliceCodePoints(text, keep)}…` : text;
}
