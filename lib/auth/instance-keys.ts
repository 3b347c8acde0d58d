import { join } from 'node:path';
import { readJsonFile, USER_STATE_ID_PATTERN, writeJsonFile } from '../fs/user-state-file.js';
import { AuthError } from './errors.js';
import { BUILT_IN_UPSTREAMS, type UpstreamKind } from './proxy-upstreams.js';

/**
 * The instance-wide provider keys (issue 31 item 1): one per upstream kind, set by the admin, and
 * the users the admin lets use them. A user whose own key for the built-in upstream of that kind
 * is not stored, and whose switch is on, is served with the instance key by the recording proxy;
 * the user's own key always wins. Kept in `<authDir>/instance-provider-keys.json` (0600, written
 * atomically): the key belongs to the instance, not to a user, so a move does not carry it. A key
 * is only read back by the proxy; everything else sees "set" or "not set".
 */
export const INSTANCE_KEYS_FILE = 'instance-provider-keys.json';
const MAX_KEY_LENGTH = 4_000;

interface FileShape {
  version: 1;
  keys: Partial<Record<UpstreamKind, string>>;
  /** the ids of the users who may use the instance keys */
  users: string[];
}

export interface InstanceKeysView {
  keys: Record<UpstreamKind, { set: boolean }>;
  /** the ids of the users who may use them */
  users: string[];
}

function isKind(kind: unknown): kind is UpstreamKind {
  return (BUILT_IN_UPSTREAMS as readonly unknown[]).includes(kind);
}

export class InstanceKeys {
  private readonly path: string;

  /** Read on each use (one small file), so every process of the instance sees the admin's change at once. */
  constructor(authDir: string) {
    this.path = join(authDir, INSTANCE_KEYS_FILE);
  }

  private read(): FileShape {
    let parsed: Partial<FileShape> | null;
    try {
      parsed = readJsonFile(this.path) as Partial<FileShape> | null;
    } catch {
      // unreadable: no instance key (a write replaces it)
      parsed = null;
    }
    const keys: FileShape['keys'] = {};
    for (const kind of BUILT_IN_UPSTREAMS) {
      const key = parsed?.keys?.[kind];
      if (typeof key === 'string' && key !== '') keys[kind] = key;
    }
    const users = Array.isArray(parsed?.users) ? parsed.users.filter((id): id is string => typeof id === 'string' && USER_STATE_ID_PATTERN.test(id)) : [];
    return { version: 1, keys, users };
  }

  private write(file: FileShape): void {
    writeJsonFile(this.path, file);
  }

  /** Which keys are set (never the keys) and who may use them. */
  view(): InstanceKeysView {
    const file = this.read();
    return { keys: { anthropic: { set: Boolean(file.keys.anthropic) }, openai: { set: Boolean(file.keys.openai) } }, users: [...file.users].sort() };
  }

  /** Sets the instance key of `kind`; an empty key removes it. Bad input throws before anything is written. */
  setKey(kind: UpstreamKind, key: string): InstanceKeysView {
    if (!isKind(kind)) throw new AuthError('BAD_REQUEST', 'kind must be anthropic or openai');
    if (typeof key !== 'string' || key.length > MAX_KEY_LENGTH || /\s/.test(key.trim())) {
      throw new AuthError('BAD_REQUEST', 'key: the provider key must be one word of at most 4,000 characters');
    }
    const file = this.read();
    if (key.trim() === '') delete file.keys[kind];
    else file.keys[kind] = key.trim();
    this.write(file);
    return this.view();
  }

  /** The per-user switch "may use the instance key" (off by default). */
  setAllowed(userId: string, allowed: boolean): InstanceKeysView {
    if (!USER_STATE_ID_PATTERN.test(userId)) throw new AuthError('BAD_REQUEST', 'not a user id');
    if (typeof allowed !== 'boolean') throw new AuthError('BAD_REQUEST', 'allowed must be true or false');
    const file = this.read();
    const others = file.users.filter((id) => id !== userId);
    this.write({ ...file, users: allowed ? [...others, userId] : others });
    return this.view();
  }

  allowed(userId: string): boolean {
    return this.read().users.includes(userId);
  }

  /** The instance key of `kind` when `userId` may use it and it is set; else null. For the proxy only. */
  keyFor(userId: string, kind: UpstreamKind): string | null {
    const file = this.read();
    return file.users.includes(userId) ? (file.keys[kind] ?? null) : null;
  }
}
