import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One user's backup carries that user's records of the instance-wide auth files and nothing of
 * anyone else's: their row of users.json, their tokens, their share links' index entries. The
 * instance's secret and CLI token stay behind (a server started on the restore makes new ones).
 */
export function userScopedAuthFiles(authDir: string, userId: string): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = [];
  const users = readJson(join(authDir, 'users.json'));
  if (users && Array.isArray(users['users'])) {
    out.push(['users.json', json({ ...users, users: users['users'].filter((user) => isOwned(user, 'id', userId)) })]);
  }
  const tokens = readJson(join(authDir, 'tokens.json'));
  if (tokens && Array.isArray(tokens['tokens'])) {
    out.push(['tokens.json', json({ ...tokens, tokens: tokens['tokens'].filter((token) => isOwned(token, 'userId', userId)) })]);
  }
  const shares = readJson(join(authDir, 'share-index.json'));
  if (shares && shares['owners'] && typeof shares['owners'] === 'object') {
    const owners = Object.fromEntries(Object.entries(shares['owners'] as Record<string, unknown>).filter(([, owner]) => owner === userId));
    out.push(['share-index.json', json({ ...shares, owners })]);
  }
  return out;
}

function isOwned(record: unknown, key: string, userId: string): boolean {
  return typeof record === 'object' && record !== null && (record as Record<string, unknown>)[key] === userId;
}

function readJson(path: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

const json = (value: unknown): Buffer => Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
