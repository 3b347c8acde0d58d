import { PayloadTooLargeError } from '../errors.js';

/**
 * The cap on one message: the UTF-8 bytes of its content (a tool result's JSON as text) plus its
 * input and metadata as JSON. Larger things belong in attachments; without a cap one user could
 * fill the server's memory and disk with a few hundred appends.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;

/** OPENPROGRAM_MAX_MESSAGE_BYTES, a whole number of bytes ≥ 1,024; anything else is the default. */
export function maxMessageBytesFromEnv(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env['OPENPROGRAM_MAX_MESSAGE_BYTES']);
  return Number.isSafeInteger(value) && value >= 1024 ? value : DEFAULT_MAX_MESSAGE_BYTES;
}

function jsonBytes(value: unknown): number {
  if (value === undefined || value === null) return 0;
  return Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
}

export function messageBytes(message: { content: unknown; input?: unknown; metadata?: unknown }): number {
  return jsonBytes(message.content) + jsonBytes(message.input) + jsonBytes(message.metadata);
}

/** `1 MiB`, `512 KiB`, `20.5 MiB`: sizes as a person reads them. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const text = unit === 0 || Number.isInteger(value) ? String(value) : value.toFixed(1);
  return `${text} ${units[unit]}`;
}

export function assertMessageSize(message: { content: unknown; input?: unknown; metadata?: unknown }, limit: number): void {
  const size = messageBytes(message);
  if (size > limit) {
    throw new PayloadTooLargeError(
      `message is ${formatBytes(size)} (content, input and metadata); the limit is ${formatBytes(limit)}. Save large output as an attachment instead.`,
    );
  }
}
