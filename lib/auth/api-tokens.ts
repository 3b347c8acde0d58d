import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile, atomicWriteFileSync } from '../fs/atomic-write.js';
import { AuthError } from './errors.js';
import { API_TOKEN_PREFIX, newSecretToken, sha256Hex } from './token-secret.js';
import { accessOfRecord, checkScopes, type TokenAccess, type TokenScope } from './token-scopes.js';

export interface TokenRecord {
  id: string;
  userId: string;
  name: string;
  /** sha256 of the token; the token itself is never stored */
  hash: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  /** absent on tokens made before scopes: they have every scope (token-scopes.ts) */
  scopes?: TokenScope[];
  /** the one project the token reaches; absent or null: every project */
  projectId?: string | null;
}

export interface TokenInfo {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  expired: boolean;
  scopes: readonly TokenScope[];
  projectId: string | null;
}

export const TOKEN_NAME_MAX_LENGTH = 100;
export const TOKEN_ID_PATTERN = /^[0-9a-f]{12}$/;
const TOKEN_ID = TOKEN_ID_PATTERN;
// last-use times are kept in memory and written at most this often: a token used by an agent
// on every call must not cost a disk write per call.
const LAST_USED_FLUSH_MS = 5_000;
// Last use is coarse: a token's time moves (and is written) at most once a minute.
const LAST_USED_GRAIN_MS = 60_000;

export type TokenChange =
  | { kind: 'insert'; token: TokenRecord }
  | { kind: 'delete'; token: TokenRecord }
  /** last-use times, written in batches */
  | { kind: 'used'; tokens: TokenRecord[] };

/** Where tokens are kept; `next` is every token with the change applied (the file backend writes it). */
export interface TokenBackend {
  write(change: TokenChange, next: TokenRecord[]): Promise<void>;
  /** at shutdown: last-use times, synchronously if the backend can (a file), else best effort */
  writeUsedSync(next: TokenRecord[]): void;
}

function serializeTokens(tokens: TokenRecord[]): string {
  return `${JSON.stringify({ version: 1, tokens }, null, 2)}\n`;
}

/** `<authDir>/tokens.json`. */
export class TokensFileBackend implements TokenBackend {
  constructor(readonly path: string) {}

  load(): TokenRecord[] {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { tokens?: unknown };
      if (!Array.isArray(parsed.tokens)) throw new Error(`${this.path} is not a tokens file`);
      return parsed.tokens as TokenRecord[];
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /** Counts synchronous saves: a background flush older than the last one is dropped, not renamed over it. */
  private generation = 0;

  async write(change: TokenChange, next: TokenRecord[]): Promise<void> {
    if (change.kind !== 'used') {
      this.writeUsedSync(next);
      return;
    }
    // In the thread pool: a request that used a token must not wait for an fsync on the event loop.
    const generation = this.generation;
    await atomicWriteFile(this.path, serializeTokens(next), { stillWanted: () => generation === this.generation });
  }

  writeUsedSync(next: TokenRecord[]): void {
    this.generation++;
    atomicWriteFileSync(this.path, serializeTokens(next));
  }
}

/** An API token names its user (`em_<userId>_<secret>`) so a router can send it to the user's instance. */
const TOKEN_USER = /^em_([0-9a-f]{16})_/;

/** The user id an API token claims (a routing hint only: the hash lookup decides), or null for older tokens. */
export function tokenClaimedUserId(token: string): string | null {
  return TOKEN_USER.exec(token)?.[1] ?? null;
}

/** Personal API tokens, stored as sha256 hashes: `<authDir>/tokens.json` by default, Postgres in cluster mode. */
export class ApiTokenStore {
  private readonly backend: TokenBackend;
  private tokens: TokenRecord[];
  private readonly byHash = new Map<string, TokenRecord>();
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly usedSinceFlush = new Set<TokenRecord>();

  constructor(source: string | { backend: TokenBackend; tokens: TokenRecord[] }, private readonly now: () => number = Date.now) {
    if (typeof source === 'string') {
      const file = new TokensFileBackend(join(source, 'tokens.json'));
      this.backend = file;
      this.tokens = file.load();
    } else {
      this.backend = source.backend;
      this.tokens = source.tokens;
    }
    for (const token of this.tokens) this.byHash.set(token.hash, token);
  }

  /** A replica's refresh (cluster mode): the tokens of one user as the backend has them now. */
  replaceUserTokens(userId: string, tokens: TokenRecord[]): void {
    for (const old of this.tokens) if (old.userId === userId) this.byHash.delete(old.hash);
    this.tokens = [...this.tokens.filter((t) => t.userId !== userId), ...tokens];
    for (const token of tokens) this.byHash.set(token.hash, token);
  }

  /** A replica's full reload. */
  replaceAll(tokens: TokenRecord[]): void {
    this.tokens = tokens;
    this.byHash.clear();
    for (const token of tokens) this.byHash.set(token.hash, token);
  }

  /** `scopes` absent: every scope (the read-write-proxy-import-mcp token of before); `projectId` is checked by the caller to be the user's. */
  async create(
    userId: string,
    input: { name: string; expiresAt?: number | null; scopes?: readonly string[]; projectId?: string | null },
  ): Promise<{ id: string; token: string; info: TokenInfo }> {
    const name = input.name.trim();
    if (name === '' || [...name].length > TOKEN_NAME_MAX_LENGTH) {
      throw new AuthError('BAD_REQUEST', `token name must be 1 to ${TOKEN_NAME_MAX_LENGTH} characters`);
    }
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= this.now())) {
      throw new AuthError('BAD_REQUEST', 'expiresAt must be a time in the future (ms since 1970)');
    }
    const projectId = input.projectId ?? null;
    const scopes = checkScopes(input.scopes, projectId);
    const token = newSecretToken(`${API_TOKEN_PREFIX}${userId}_`);
    const record: TokenRecord = {
      id: this.newId(),
      userId,
      name,
      hash: sha256Hex(token),
      createdAt: this.now(),
      lastUsedAt: null,
      expiresAt,
      scopes,
      projectId,
    };
    await this.backend.write({ kind: 'insert', token: record }, [...this.tokens, record]);
    this.tokens.push(record);
    this.byHash.set(record.hash, record);
    return { id: record.id, token, info: this.info(record) };
  }

  list(userId: string): TokenInfo[] {
    return this.tokens.filter((t) => t.userId === userId).map((t) => this.info(t));
  }

  /** Revoking removes the hash, so the token stops working at once. Another user's id is NOT_FOUND. */
  async revoke(userId: string, id: string): Promise<void> {
    const record = TOKEN_ID.test(id) ? this.tokens.find((t) => t.id === id && t.userId === userId) : undefined;
    if (!record) throw new AuthError('NOT_FOUND', 'no such token');
    const next = this.tokens.filter((t) => t !== record);
    await this.backend.write({ kind: 'delete', token: record }, next);
    this.tokens = this.tokens.filter((t) => t !== record);
    this.byHash.delete(record.hash);
    this.usedSinceFlush.delete(record);
  }

  /** The owner of a valid, unexpired token (and records its use), or null. */
  authenticate(token: string): { userId: string; tokenId: string } | null {
    if (!token.startsWith(API_TOKEN_PREFIX)) return null;
    // A hash-map lookup on sha256 leaks no timing about the stored token: an attacker would need
    // to control the hash's prefix.
    const record = this.byHash.get(sha256Hex(token));
    if (!record) return null;
    // The id in the token is hashed with the rest, so it cannot name anyone else; checked anyway.
    const claimed = tokenClaimedUserId(token);
    if (claimed !== null && claimed !== record.userId) return null;
    if (record.expiresAt !== null && record.expiresAt <= this.now()) return null;
    if (record.lastUsedAt === null || this.now() - record.lastUsedAt >= LAST_USED_GRAIN_MS) {
      record.lastUsedAt = this.now();
      this.usedSinceFlush.add(record);
      this.scheduleFlush();
    }
    return { userId: record.userId, tokenId: record.id };
  }

  /** What a token found by authenticate may reach (its scopes and project). */
  accessOf(tokenId: string): TokenAccess | null {
    const record = this.tokens.find((t) => t.id === tokenId);
    return record ? accessOfRecord(record) : null;
  }

  /** Whether a token found earlier is still there and unexpired (for long-lived requests). */
  isActive(tokenId: string): boolean {
    const record = this.tokens.find((t) => t.id === tokenId);
    return record !== undefined && (record.expiresAt === null || record.expiresAt > this.now());
  }

  /** Writes pending last-use times now; called at shutdown. */
  flushSync(): void {
    if (this.flushTimer === undefined) return;
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.usedSinceFlush.clear();
    this.backend.writeUsedSync(this.tokens);
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      const used = [...this.usedSinceFlush];
      this.usedSinceFlush.clear();
      this.backend.write({ kind: 'used', tokens: used }, this.tokens).catch((error: unknown) => {
        console.error('[auth] could not record token use:', error);
      });
    }, LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  private info(record: TokenRecord): TokenInfo {
    const { id, name, createdAt, lastUsedAt, expiresAt } = record;
    const { scopes, projectId } = accessOfRecord(record);
    return { id, name, createdAt, lastUsedAt, expiresAt, expired: expiresAt !== null && expiresAt <= this.now(), scopes, projectId };
  }

  private newId(): string {
    for (;;) {
      const id = randomBytes(6).toString('hex');
      if (!this.tokens.some((t) => t.id === id)) return id;
    }
  }
}
