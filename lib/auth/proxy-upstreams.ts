import { readFileSync } from 'node:fs';
import { atomicWriteFileSync } from '../fs/atomic-write.js';
import { AuthError } from './errors.js';

/**
 * The recording proxy's upstreams per user (DESIGN §12): name, kind, base URL and, when the user
 * stored one, the provider key. One file, `<DATA>/auth/proxy-upstreams.json`, 0600. A key is
 * only ever read back by the proxy to call its provider; listings say whether one is set.
 */
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

interface FileShape {
  version: 1;
  users: Record<string, Record<string, { kind: UpstreamKind; baseUrl: string; key: string | null }>>;
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
  /** Only this process writes the file (one server per data directory): read once, kept in step on write. */
  private cached: FileShape | null = null;

  constructor(
    private readonly path: string,
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {}

  /** A copy: callers change it and write it back, so a failed write leaves the cache as the file is. */
  private read(): FileShape {
    this.cached ??= this.load();
    return structuredClone(this.cached);
  }

  private load(): FileShape {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as FileShape;
      if (parsed && parsed.version === 1 && parsed.users && typeof parsed.users === 'object') return parsed;
    } catch {
      // missing or unreadable: no upstream set yet
    }
    return { version: 1, users: {} };
  }

  private write(file: FileShape): void {
    atomicWriteFileSync(this.path, `${JSON.stringify(file, null, 2)}\n`);
    this.cached = file;
  }

  /** The path of the request: one user's stored upstream without copying the whole file. */
  private stored(userId: string, name: string): FileShape['users'][string][string] | undefined {
    this.cached ??= this.load();
    return this.cached.users[userId]?.[name];
  }

  /** Every upstream of the user, the two built-in ones first; keys only as set or not. */
  list(userId: string): UpstreamView[] {
    const own = this.read().users[userId] ?? {};
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
    const stored = this.stored(userId, name);
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
    const file = this.read();
    const own = (file.users[userId] ??= {});
    const before = own[input.name];
    const baseUrl = input.baseUrl !== undefined && input.baseUrl.trim() !== '' ? normalizeUpstreamUrl(input.baseUrl) : (before?.baseUrl ?? (BUILT_IN_UPSTREAMS.includes(input.kind) && input.name === input.kind ? defaultUpstreamUrl(input.kind, this.env) : null));
    if (!baseUrl) throw new AuthError('BAD_REQUEST', 'a new upstream needs its base URL');
    const key = input.key === undefined ? (before?.key ?? null) : input.key.trim() === '' ? null : input.key.trim();
    own[input.name] = { kind: input.kind, baseUrl, key };
    this.write(file);
    return this.list(userId).find((view) => view.name === input.name)!;
  }

  /** Remove one (a built-in one goes back to the instance's default, without a key). */
  delete(userId: string, name: string): { name: string } {
    const file = this.read();
    const own = file.users[userId];
    if (!own?.[name]) {
      if ((BUILT_IN_UPSTREAMS as readonly string[]).includes(name)) return { name };
      throw new AuthError('NOT_FOUND', `no upstream named ${name}`);
    }
    delete own[name];
    this.write(file);
    return { name };
  }
}
