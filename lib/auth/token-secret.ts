import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Personal API tokens start with this, so a leaked one is easy to recognise and grep for. */
export const API_TOKEN_PREFIX = 'em_';
/** The CLI's token (data/auth/cli-token) has its own prefix: it is a different kind of credential. */
export const CLI_TOKEN_PREFIX = 'emcli_';

/** 32 random bytes (256 bits), base64url: long enough that a plain sha256 is a safe way to store it. */
export function newSecretToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  // Comparing digests keeps the time independent of where the strings differ and of their lengths.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
