import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, userStatePath, USER_STATE_ID_PATTERN, writeJsonFile } from '../fs/user-state-file.js';
import { AuthError } from './errors.js';

/**
 * The recording proxy's upstreams per user (DESIGN §12): name, kind, base URL and, when the user
 * stored one, the provider key. Each user's in their own folder, `users/<id>/proxy-upstreams.json`
 * (0600): a move carries the keys, and the source's clean-up removes them with the folder. A key
 * is only ever read back by the proxy to call its provider; listings say whether one is set.
 */
export const PROXY_UPSTREAMS_FILE = 'proxy-upstreams.json';
export type UpstreamKind = 'anthropic' | 'openai';

export interface Upstream {
  name: string;
  kind: UpstreamKind;
  /** anthropic: the API root without /v1; openai: with /v1 */
  baseUrl: string;
  key: string | null;
}

export interface UpstreamView {
  name: string;
  kind: UpstreamKind;
  baseUrl: string;
  keySet: boolean;
  /** `anthropic` and `openai` always exist; deleting them restores the instance's default */
  builtIn: boolean;
}

export const UPSTREAM_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const BUILT_IN_UPSTREAMS: readonly UpstreamKind[] = ['anthropic', 'openai'];
const MAX_KEY_LENGTH = 4_000;

type StoredUpstreams = Record<string, { kind: UpstreamKind; baseUrl: string; key: string | null }>;

/** `users/<id>/proxy-upstreams.json` */
interface UserFileShape {
  version: 1;
  upstreams: StoredUpstreams;
}

/** The old instance-wide `auth/proxy-upstreams.json`, read only to migrate it. */
interface InstanceFileShape {
  version: 1;
  users: Record<string, StoredUpstreams>;
}

function readUserFile(path: string): StoredUpstreams {
  const parsed = readJsonFile(path) as Partial<UserFileShape> | null;
  return parsed?.upstreams && typeof parsed.upstreams === 'object' ? parsed.upstreams : {};
}

/**
 * Start-up: the old instance-wide `<authDir>/proxy-upstreams.json` split into each user's folder
 * (an upstream the user's own file already has is kept as it is), then removed, so no key stays
 * in a file a move leaves behind. Idempotent; returns how many users' upstreams were moved.
 */
export function migrateProxyUpstreams(authDir: string, dataDir: string): number {
  const oldPath = join(authDir, PROXY_UPSTREAMS_FILE);
  const old = readJsonFile(oldPath) as Partial<InstanceFileShape> | null;
  if (old === null) return 0;
  let moved = 0;
  for (const [userId, upstreams] of Object.entries(old.users ?? {})) {
    if (!USER_STATE_ID_PATTERN.test(userId) || !upstreams || typeof upstreams !== 'object') continue;
    const path = userStatePath(dataDir, userId, PROXY_UPSTREAMS_FILE);
    const present = readUserFile(path);
    writeJsonFile(path, { version: 1, upstreams: { ...upstreams, ...present } } satisfies UserFileShape);
    moved += 1;
  }
  rmSync(oldPath, { force: true });
  return moved;
}

/** The instance's defaults: the providers' public APIs, or OPENPROGRAM_PROXY_ANTHROPIC_URL / _OPENAI_URL. */
export function defaultUpstreamUrl(kind: UpstreamKind, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const set = kind === 'anthropic' ? env['OPENPROGRAM_PROXY_ANTHROPIC_URL'] : env['OPENPROGRAM_PROXY_OPENAI_URL'];
  const url = set?.trim() || (kind === 'anthropic' ? 'https://api.anthropic.com' : 'https://api.openai.com/v1');
  return url.replace(/\/+$/, '');
}

/** An http(s) URL without credentials, query or fragment; trailing slashes dropped. */
export function normalizeUpstreamUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new AuthError('BAD_REQUEST', `not a URL: ${JSON.stringify(value.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AuthError('BAD_REQUEST', 'the upstream URL must start with http:// or https://');
  if (url.username || url.password) throw new AuthError('BAD_REQUEST', 'put the provider key in its own field, not in the URL');
  if (url.search || url.hash) throw new AuthError('BAD_REQUEST', 'the upstream URL takes no query or fragment');
  return url.toString().replace(/\/+$/, '');
}

export class ProxyUpstreams {
  /** Read on each use (one small file): nothing cached can outlive the user moving away and back. */
  constructor(
    private readonly dataDir: string,
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {}

  private read(userId: string): StoredUpstreams {
    try {
      return readUserFile(userStatePath(this.dataDir, userId, PROXY_UPSTREAMS_FILE));
    } catch {
      // unreadable: no upstream set (a write replaces it)
      return {};
    }
  }

  private write(userId: string, upstreams: StoredUpstreams): void {
    writeJsonFile(userStatePath(this.dataDir, userId, PROXY_UPSTREAMS_FILE), { version: 1, upstreams } satisfies UserFileShape);
  }

  /** Every upstream of the user, the two built-in ones first; keys only as set or not. */
  list(userId: string): UpstreamView[] {
    const own = this.read(userId);
    const views: UpstreamView[] = BUILT_IN_UPSTREAMS.map((kind) => {
      const stored = own[kind];
      return { name: kind, kind, baseUrl: stored?.baseUrl ?? defaultUpstreamUrl(kind, this.env), keySet: Boolean(stored?.key), builtIn: true };
    });
    for (const [name, stored] of Object.entries(own).sort(([a], [b]) => a.localeCompare(b))) {
      if ((BUILT_IN_UPSTREAMS as readonly string[]).includes(name)) continue;
      views.push({ name, kind: stored.kind, baseUrl: stored.baseUrl, keySet: Boolean(stored.key), builtIn: false });
    }
    return views;
  }

  /** The upstream named `name` for this user, with its key, or null when there is none. */
  resolve(userId: string, name: string): Upstream | null {
    const stored = this.read(userId)[name];
    if (stored) return { name, kind: stored.kind, baseUrl: stored.baseUrl, key: stored.key };
    if ((BUILT_IN_UPSTREAMS as readonly string[]).includes(name)) {
      const kind = name as UpstreamKind;
      return { name, kind, baseUrl: defaultUpstreamUrl(kind, this.env), key: null };
    }
    return null;
  }

  /** Add or change one; an omitted key keeps the stored one, an empty key clears it. */
  set(userId: string, input: { name: string; kind: UpstreamKind; baseUrl?: string; key?: string }): UpstreamView {
    if (!UPSTREAM_NAME_PATTERN.test(input.name)) throw new AuthError('BAD_REQUEST', 'an upstream name is 1–32 lower-case letters, digits or dashes');
    if (input.kind !== 'anthropic' && input.kind !== 'openai') throw new AuthError('BAD_REQUEST', 'kind must be anthropic or openai');
    if ((BUILT_IN_UPSTREAMS as readonly string[]).includes(input.name) && input.kind !== input.name) {
      throw new AuthError('BAD_REQUEST', `the upstream ${input.name} is of kind ${input.name}`);
    }
    if (input.key !== undefined && (typeof input.key !== 'string' || input.key.length > MAX_KEY_LENGTH || /\s/.test(input.key.trim()))) {
      throw new AuthError('BAD_REQUEST', 'the provider key must be one word of at most 4,000 characters');
    }
    const own = this.read(userId);
    const before = own[input.name];
    const baseUrl = input.baseUrl !== undefined && input.baseUrl.trim() !== '' ? normalizeUpstreamUrl(input.baseUrl) : (before?.baseUrl ?? (BUILT_IN_UPSTREAMS.includes(input.kind) && input.name === input.kind ? defaultUpstreamUrl(input.kind, this.env) : null));
    if (!baseUrl) throw new AuthError('BAD_REQUEST', 'a new upstream needs its base URL');
    const key = input.key === undefined ? (before?.key ?? null) : input.key.trim() === '' ? null : input.key.trim();
    own[input.name] = { kind: input.kind, baseUrl, key };
    this.write(userId, own);
    return this.list(userId).find((view) => view.name === input.name)!;
  }

  /** Remove one (a built-in one goes back to the instance's default, without a key). */
  delete(userId: string, name: string): { name: string } {
    const own = this.read(userId);
    if (!own[name]) {
      if ((BUILT_IN_UPSTREAMS as readonly string[]).includes(name)) return { name };
      throw new AuthError('NOT_FOUND', `no upstream named ${name}`);
    }
    delete own[name];
    this.write(userId, own);
    return { name };
  }
}
