import type { NumberedLine } from './types.js';

/** The longest line an import reads (issue 27): a longer one is skipped, reported with its number. */
export const MAX_LINE_BYTES = 32 * 1024 * 1024;

export interface LinesOptions {
  /** default MAX_LINE_BYTES */
  maxLineBytes?: number;
  /** told of each line past the bound: its number and its length in bytes (the line itself is dropped) */
  onTooLong?: (line: number, bytes: number) => void;
}

const NEWLINE = 0x0a;

/**
 * The lines of a byte stream, numbered from 1, decoded as UTF-8. A final line without a newline
 * counts too (Claude Code's last line often has none while it writes).
 *
 * Linear in the input: each chunk is searched once for newlines (never the pending text from
 * its start again), the bytes of an unfinished line are kept as a list of slices and joined
 * once when it ends. 0x0A is never inside a UTF-8 sequence, so each line decodes on its own.
 * A line past the bound keeps no bytes at all: it is counted to its end and reported.
 */
export async function* linesOf(chunks: AsyncIterable<Uint8Array>, options: LinesOptions = {}): AsyncGenerator<NumberedLine> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let pieces: Uint8Array[] = [];
  let pendingBytes = 0;
  let tooLong = false;
  let line = 0;
  const finish = (last: Uint8Array): NumberedLine | null => {
    line++;
    const bytes = pendingBytes + last.length;
    if (tooLong || bytes > max) {
      options.onTooLong?.(line, bytes);
      pieces = [];
      pendingBytes = 0;
      tooLong = false;
      return null;
    }
    const whole = pieces.length === 0 ? last : Buffer.concat([...pieces, last], bytes);
    pieces = [];
    pendingBytes = 0;
    let text = decoder.decode(whole);
    if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return { line, text: text.endsWith('\r') ? text.slice(0, -1) : text };
  };
  for await (const chunk of chunks) {
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      const done = finish(chunk.subarray(from, at));
      from = at + 1;
      if (done) yield done;
    }
    if (from < chunk.length) {
      const rest = chunk.subarray(from);
      pendingBytes += rest.length;
      if (tooLong || pendingBytes > max) {
        // Past the bound: only its length is kept from here to its newline.
        tooLong = true;
        pieces = [];
      } else {
        // A copy: the caller may reuse its chunk's buffer (a stream's pool) once we ask for the next.
        pieces.push(Uint8Array.prototype.slice.call(rest));
      }
    }
  }
  if (pendingBytes > 0) {
    const done = finish(new Uint8Array(0));
    if (done) yield done;
  }
}

/** A JSON line as an object, or why not. */
export function parseObjectLine(text: string): { value: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'not a JSON object' };
  return { value: value as Record<string, unknown> };
}

/** ISO-8601 → Unix seconds, or null. */
export function isoSeconds(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? ms / 1000 : null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
