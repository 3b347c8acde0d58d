import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../fs/atomic-write.js';

/**
 * The next-auth signing secret: NEXTAUTH_SECRET when given, else `<authDir>/secret`, generated on
 * first use, so the app starts with no configuration and sign-ins survive a restart.
 */
export function loadOrCreateAuthSecret(authDir: string, fromEnv: string | undefined): string {
  if (fromEnv && fromEnv.trim() !== '') return fromEnv;
  const path = join(authDir, 'secret');
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBytes(48).toString('base64url');
  atomicWriteFileSync(path, `${secret}\n`);
  return secret;
}
