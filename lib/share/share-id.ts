import { randomBytes } from 'node:crypto';

/** 16 random bytes from the OS's CSPRNG: 128 bits, never derived from the session id. */
const SHARE_ID_BYTES = 16;

/** base64url of 16 bytes: 22 characters, the last one carrying only 2 bits (A, Q, g or w). */
export const SHARE_ID_PATTERN = /^[A-Za-z0-9_-]{21}[AQgw]$/;

export function newShareId(): string {
  return randomBytes(SHARE_ID_BYTES).toString('base64url');
}

export function isShareId(value: unknown): value is string {
  return typeof value === 'string' && SHARE_ID_PATTERN.test(value);
}
