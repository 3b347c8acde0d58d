import { createHash } from 'node:crypto';
import { NODE_ID_PATTERN, SESSION_ID_PATTERN } from '../store/index.js';

/** A source's own id where it is a valid node id, else a stable hash of it. */
export function nodeIdOf(raw: string): string {
  return NODE_ID_PATTERN.test(raw) ? raw : `h${createHash('sha256').update(raw).digest('hex').slice(0, 40)}`;
}

/**
 * `<prefix>-<id>`, the id the recording proxy gives the same conversation (DESIGN §12): an id that
 * would pass 128 characters or is not a safe name becomes `<prefix>-h<first 40 hex of its SHA-256>`.
 */
export function sessionIdOf(prefix: string, raw: string): string {
  const id = `${prefix}-${raw}`;
  return SESSION_ID_PATTERN.test(id) ? id : `${prefix}-h${createHash('sha256').update(raw).digest('hex').slice(0, 40)}`;
}
