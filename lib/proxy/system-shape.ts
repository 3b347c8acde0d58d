/**
 * The shape of a system prompt sent as blocks (Anthropic Messages: `[{type: 'text', text,
 * cache_control}, …]`, as Claude Code sends it), kept beside a kept request so that a Retry or a
 * Replay sends the same blocks again, not their text joined into one string. The text itself is
 * kept once by hash (context/system/<sha256>.txt, the blocks' texts joined by a blank line, as
 * request.ts joins them); the shape holds each block less its text, and the text's length.
 */
export interface SystemShape {
  /** each block without its `text` */
  blocks: Record<string, unknown>[];
  /** each block's text length in UTF-16 code units (0: an empty block, left out of the joined text) */
  lengths: number[];
}

const SEPARATOR = '\n\n';

/** The shape of a system prompt given as blocks; null for a plain string or anything else. */
export function shapeOfSystem(value: unknown): SystemShape | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const blocks: Record<string, unknown>[] = [];
  const lengths: number[] = [];
  for (const block of value) {
    if (typeof block !== 'object' || block === null || Array.isArray(block)) return null;
    const { text, ...rest } = block as Record<string, unknown>;
    if (typeof text !== 'string') return null;
    blocks.push(rest);
    lengths.push(text.length);
  }
  return { blocks, lengths };
}

/** A shape read back from a context file: null when it is not one. */
export function readSystemShape(value: unknown): SystemShape | null {
  if (typeof value !== 'object' || value === null) return null;
  const { blocks, lengths } = value as Partial<SystemShape>;
  if (!Array.isArray(blocks) || !Array.isArray(lengths) || blocks.length !== lengths.length) return null;
  if (!blocks.every((block) => typeof block === 'object' && block !== null && !Array.isArray(block))) return null;
  if (!lengths.every((length) => Number.isInteger(length) && length >= 0)) return null;
  return { blocks, lengths };
}

/**
 * The blocks again, each with its text cut from the joined `text` (which may go on past them with
 * a system message the agent sent among its messages); null when the text does not fit the shape
 * (redacted since): the caller sends the text as one string then.
 */
export function restoreSystem(shape: SystemShape, text: string): Record<string, unknown>[] | null {
  const blocks: Record<string, unknown>[] = [];
  let offset = 0;
  let first = true;
  for (const [index, block] of shape.blocks.entries()) {
    const length = shape.lengths[index]!;
    if (length === 0) {
      blocks.push({ ...block, text: '' });
      continue;
    }
    if (!first) {
      if (text.slice(offset, offset + SEPARATOR.length) !== SEPARATOR) return null;
      offset += SEPARATOR.length;
    }
    first = false;
    if (offset + length > text.length) return null;
    blocks.push({ ...block, text: text.slice(offset, offset + length) });
    offset += length;
  }
  // Whatever follows is a system message the agent sent among its messages (request.ts adds it): still there.
  return offset === text.length || text.slice(offset, offset + SEPARATOR.length) === SEPARATOR ? blocks : null;
}
