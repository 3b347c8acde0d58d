import type { NumberedLine } from './types.js';

/**
 * The lines of a byte stream, numbered from 1, decoded as UTF-8 across chunk edges. A final line
 * without a newline counts too (Claude Code's last line often has none while it writes).
 */
export async function* linesOf(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<NumberedLine> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let line = 0;
  for await (const chunk of chunks) {
    pending += decoder.decode(chunk, { stream: true });
    let at = pending.indexOf('\n');
    while (at !== -1) {
      line++;
      yield { line, text: pending.slice(0, at).replace(/\r$/, '') };
      pending = pending.slice(at + 1);
      at = pending.indexOf('\n');
    }
  }
  pending += decoder.decode();
  if (pending.length > 0) yield { line: line + 1, text: pending.replace(/\r$/, '') };
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
