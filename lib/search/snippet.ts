import { markdownPlainText } from './plain-text.js';

/**
 * The part of a matched text shown in a hit, as segments: `match` marks the found words. Data, not
 * HTML: the page renders each segment as text, so nothing a message holds can become markup.
 */
export interface SnippetSegment {
  text: string;
  match: boolean;
}

/** characters of context before the first match and in all */
const BEFORE = 40;
const WIDTH = 180;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** [start, end) of every occurrence of any term, case-insensitive, merged where they overlap. */
function matchRanges(text: string, terms: readonly string[]): Array<[number, number]> {
  if (terms.length === 0) return [];
  // Longest first, so "error" wins over "err" at the same place.
  const pattern = new RegExp([...terms].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'giu');
  const ranges: Array<[number, number]> = [];
  for (const found of text.matchAll(pattern)) {
    const start = found.index;
    const end = start + found[0].length;
    const last = ranges[ranges.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  return ranges;
}

/** Never cut a surrogate pair in two. */
function safeIndex(text: string, index: number): number {
  if (index <= 0) return 0;
  if (index >= text.length) return text.length;
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/** Whitespace runs as one space: a hit is one line. */
function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ');
}

/**
 * Of a long message only the part around the first match is read as Markdown: parsing 200,000
 * characters for a 180-character snippet would cost more than the search. A window that starts
 * inside a code block reads that block as prose, which for a snippet is harmless.
 */
const MARKDOWN_WINDOW_BEFORE = 600;
const MARKDOWN_WINDOW = 2_000;

function markdownWindow(rawText: string, terms: readonly string[]): string {
  if (rawText.length <= MARKDOWN_WINDOW) return rawText;
  const first = matchRanges(rawText, terms)[0];
  const start = first ? safeIndex(rawText, Math.max(0, first[0] - MARKDOWN_WINDOW_BEFORE)) : 0;
  return rawText.slice(start, safeIndex(rawText, start + MARKDOWN_WINDOW));
}

/**
 * `markdown`: the text is a message's Markdown (user, assistant and system messages), shown by
 * its words; titles and tool records are shown as they are (a tool's JSON is its own syntax).
 */
export function snippetOf(rawText: string, terms: readonly string[], options: { markdown?: boolean } = {}): SnippetSegment[] {
  const text = oneLine(options.markdown ? markdownPlainText(markdownWindow(rawText, terms)) : rawText).trim();
  const ranges = matchRanges(text, terms);
  const first = ranges[0];
  let start = first ? safeIndex(text, Math.max(0, first[0] - BEFORE)) : 0;
  // Start at a word boundary when one is near, so the snippet does not begin mid-word.
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && first && space < first[0]) start = space + 1;
  }
  const end = safeIndex(text, Math.min(text.length, start + WIDTH));
  const segments: SnippetSegment[] = [];
  const push = (piece: string, match: boolean) => {
    if (piece.length === 0) return;
    const last = segments[segments.length - 1];
    if (last && last.match === match) last.text += piece;
    else segments.push({ text: piece, match });
  };
  if (start > 0) push('…', false);
  let at = start;
  for (const [from, to] of ranges) {
    if (to <= start) continue;
    if (from >= end) break;
    push(text.slice(at, Math.max(at, from)), false);
    push(text.slice(Math.max(at, from), Math.min(to, end)), true);
    at = Math.min(to, end);
  }
  push(text.slice(at, end), false);
  if (end < text.length) push('…', false);
  return segments;
}
