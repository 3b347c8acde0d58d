import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from './atomic-write.js';

/** A user id as lib/auth makes them; checked here too, since it becomes a path. */
export const USER_STATE_ID_PATTERN = /^[0-9a-f]{16}$/;

/**
 * A small JSON file of one user's own state under `<data>/users/<id>/` (share links, provider
 * keys, project roots): a move copies that folder and the source removes it at clean-up, so the
 * state goes with the user and nothing of it stays behind. 0600, written atomically.
 */
export function userStatePath(dataDir: string, userId: string, name: string): string {
  if (!USER_STATE_ID_PATTERN.test(userId)) throw new Error(`invalid user id ${JSON.stringify(userId)}`);
  return join(dataDir, 'users', userId, name);
}

/** The parsed file, or null when there is none. A file that is not JSON throws: it is not silently replaced. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return JSON.parse(text) as unknown;
}

export function writeJsonFile(path: string, value: unknown): void {
  atomicWriteFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** The ids of the users with a folder under `<data>/users/`. */
export function userIdsWithState(dataDir: string): string[] {
  try {
    return readdirSync(join(dataDir, 'users')).filter((name) => USER_STATE_ID_PATTERN.test(name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
