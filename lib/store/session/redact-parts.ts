import type { RedactableParts, Redactor } from '../types.js';

/**
 * Messages of this many characters or more in all (a file of this many bytes) are redacted in
 * the background when the redactor can (a worker thread): inline, redaction holds the event loop
 * ~25 ms per MB, so a 32 MiB proxied request, a large import or a 20 MB upload would stall every
 * user for most of a second. Below it a redaction holds the loop a few ms at most, less than the
 * trip to the worker and back.
 */
export const BACKGROUND_REDACT_CHARS = 256 * 1024;

export interface RedactedParts<M> {
  message: M;
  /** secrets taken out */
  count: number;
}

/** Whether the strings of `value` hold at least `limit` characters (stops counting there). */
function reaches(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      total += item.length;
      if (total >= limit) return true;
    } else if (Array.isArray(item)) {
      for (const inner of item) stack.push(inner);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        total += key.length;
        stack.push(inner);
      }
    }
  }
  return total >= limit;
}

/**
 * Secrets out of messages before they are written (DESIGN §10), each with its count: in the
 * redactor's background when they are large together, else here, with one scan of them all
 * first (most hold nothing). Without a redactor, as given.
 */
export async function redactParts<M extends RedactableParts>(redactor: Redactor | null, messages: M[]): Promise<RedactedParts<M>[]> {
  if (!redactor || messages.length === 0) return messages.map((message) => ({ message, count: 0 }));
  if (redactor.inBackground && reaches(messages, BACKGROUND_REDACT_CHARS)) return redactor.inBackground(messages);
  if (redactor.mayHoldSecret && !redactor.mayHoldSecret(messages)) return messages.map((message) => ({ message, count: 0 }));
  return messages.map((message) => redactor(message));
}
