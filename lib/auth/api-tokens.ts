import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFile, atomicWriteFileSync } from '../fs/atomic-write.js';
import { AuthError } from './errors.js';
import { API_TOKEN_PREFIX, newSecretToken, sha256Hex } from './token-secret.js';

interface TokenRecord {
  id: string;
  userId: string;
  name: string;
  /** sha256 of the token; the token itself is never stored */
  hash: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
}

export interface TokenInfo {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  expired: boolean;
}

export const TOKEN_NAME_MAX_LENGTH = 100;
export const TOKEN_ID_PATTERN = /^[0-9a-f]{12}$/;
const TOKEN_ID = TOKEN_ID_PATTERN;
// last-use times are kept in memory and written at most this often: a token used by an agent
// on every call must not cost a disk write per call.
const LAST_USED_FLUSH_MS = 5_000;

/** Personal API tokens in `<authDir>/tokens.json`, stored as sha256 hashes. */
export class ApiTokenStore {
  private readonly path: string;
  private readonly tokens: TokenRecord[];
  private readonly byHash = new Map<string, TokenRecord>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(authDir: string, private readonly now: () => number = Date.now) {
    this.path = join(authDir, 'tokens.json');
    this.tokens = this.load();
    for (const token of this.tokens) this.byHash.set(token.hash, token);
  }

  create(userId: string, input: { name: string; expiresAt?: number | null }): { id: string; token: string; info: TokenInfo } {
    const name = input.name.trim();
    if (name === '' || [...name].length > TOKEN_NAME_MAX_LENGTH) {
      throw new AuthError('BAD_REQUEST', `token name must be 1 to ${TOKEN_NAME_MAX_LENGTH} characters`);
    }
    const expiresAt = input.expiresAt ?? null;
    if (expiresAt !== null && (!Number.isSafeInteger(expiresAt) || expiresAt <= this.now())) {
      throw new AuthError('BAD_REQUEST', 'expiresAt must be a time in the future (ms since 1970)');
    }
    const token = newSecretToken(API_TOKEN_PREFIX);
    const record: TokenRecord = {
      id: this.newId(),
      userId,
      name,
      hash: sha256Hex(token),
      createdAt: this.now(),
      lastUsedAt: null,
      expiresAt,
    };
    this.tokens.push(record);
    this.byHash.set(record.hash, record);
    try {
      this.save();
    } catch (error) {
      this.tokens.pop();
      this.byHash.delete(record.hash);
      throw error;
    }
    return { id: record.id, token, info: this.info(record) };
  }

  list(userId: string): TokenInfo[] {
    return this.tokens.filter((t) => t.userId === userId).map((t) => this.info(t));
  }

  /** Revoking removes the hash, so the token stops working at once. Another user's id is NOT_FOUND. */
  revoke(userId: string, id: string): void {
    const index = TOKEN_ID.test(id) ? this.tokens.findIndex((t) => t.id === id && t.userId === userId) : -1;
    if (index < 0) throw new AuthError('NOT_FOUND', 'no such token');
    const [record] = this.tokens.splice(index, 1);
    this.byHash.delete(record!.hash);
    try {
      this.save();
    } catch (error) {
      this.tokens.splice(index, 0, record!);
      this.byHash.set(record!.hash, record!);
      throw error;
    }
  }

  /** The owner of a valid, unexpired token (and records its use), or null. */
  authenticate(token: string): { userId: string; tokenId: string } | null {
    if (!token.startsWith(API_TOKEN_PREFIX)) return null;
    // A hash-map lookup on sha256 leaks no timing about the stored token: an attacker would need
    // to control the hash's prefix.
    const record = this.byHash.get(sha256Hex(token));
    if (!record) return null;
    if (record.expiresAt !== null && record.expiresAt <= this.now()) return null;
    record.lastUsedAt = this.now();
    this.scheduleFlush();
    return { userId: record.userId, tokenId: record.id };
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
    this.save();
  }

  private scheduleFlush(): void {
    if (this.flushTimer !== undefined) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      // In the thread pool: a request that used a token must not wait for an fsync on the event loop.
      const generation = this.generation;
      atomicWriteFile(this.path, this.serialize(), { stillWanted: () => generation === this.generation }).catch((error: unknown) => {
        console.error('[auth] could not record token use:', error);
      });
    }, LAST_USED_FLUSH_MS);
    this.flushTimer.unref();
  }

  private info(record: TokenRecord): TokenInfo {
    const { id, name, createdAt, lastUsedAt, expiresAt } = record;
    return { id, name, createdAt, lastUsedAt, expiresAt, expired: expiresAt !== null && expiresAt <= this.now() };
  }

  private newId(): string {
    for (;;) {
      const id = randomBytes(6).toString('hex');
      if (!this.tokens.some((t) => t.id === id)) return id;
    }
  }

  private load(): TokenRecord[] {
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

  private serialize(): string {
    return `${JSON.stringify({ version: 1, tokens: this.tokens }, null, 2)}\n`;
  }

  private save(): void {
    this.generation++;
    atomicWriteFileSync(this.path, this.serialize());
  }
}
