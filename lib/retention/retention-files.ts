import { join } from 'node:path';
import { readJsonFile, userStatePath, writeJsonFile } from '../fs/user-state-file.js';
import { parsePolicy, type RetentionPolicy } from './retention-policy.js';

/** `users/<id>/retention.json`: `{own}`, the user's own policy or null (follow the instance); a move carries it. */
export const USER_RETENTION_FILE = 'retention.json';
/** `auth/retention.json`: the instance default the admin set. */
export const INSTANCE_RETENTION_FILE = 'retention.json';
/** `users/<id>/retention-state.json`: when the sweep first saw each session archived (the clock of "archived for M days"). */
export const SWEEP_STATE_FILE = 'retention-state.json';

function ownOf(value: unknown): RetentionPolicy | null {
  if (value === null || typeof value !== 'object') return null;
  return parsePolicy((value as { own?: unknown }).own ?? null);
}

export function readUserRetention(dataDir: string, userId: string): RetentionPolicy | null {
  return ownOf(readJsonFile(userStatePath(dataDir, userId, USER_RETENTION_FILE)));
}

export function writeUserRetention(dataDir: string, userId: string, own: RetentionPolicy | null): void {
  writeJsonFile(userStatePath(dataDir, userId, USER_RETENTION_FILE), { own });
}

export function readInstanceRetention(authDir: string): RetentionPolicy | null {
  return parsePolicy(readJsonFile(join(authDir, INSTANCE_RETENTION_FILE)));
}

export function writeInstanceRetention(authDir: string, policy: RetentionPolicy): void {
  writeJsonFile(join(authDir, INSTANCE_RETENTION_FILE), policy);
}

/** session id → seconds the sweep first saw it archived */
export type ArchivedSince = Record<string, number>;

export function readArchivedSince(stateDir: string): ArchivedSince {
  let value: unknown;
  try {
    value = readJsonFile(join(stateDir, SWEEP_STATE_FILE));
  } catch {
    return {}; // unreadable: every archived session starts its count again, which only delays
  }
  const since = value !== null && typeof value === 'object' ? (value as { archivedSince?: unknown }).archivedSince : null;
  if (since === null || typeof since !== 'object') return {};
  return Object.fromEntries(Object.entries(since as Record<string, unknown>).filter((pair): pair is [string, number] => Number.isSafeInteger(pair[1])));
}

export function writeArchivedSince(stateDir: string, archivedSince: ArchivedSince): void {
  writeJsonFile(join(stateDir, SWEEP_STATE_FILE), { archivedSince });
}
