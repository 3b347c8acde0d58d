import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../fs/atomic-write.js';
import type { Clock } from './clock.js';
import { NO_SUCH_LINK, ShareError } from './errors.js';
import { isShareId, newShareId } from './share-id.js';

/** How long a link lives from the moment it is made or its expiry is changed. */
export type ShareExpiry = '1d' | '7d' | '30d' | 'never';
export const SHARE_EXPIRIES: readonly ShareExpiry[] = ['1d', '7d', '30d', 'never'];
const DAY_MS = 24 * 60 * 60 * 1000;
const EXPIRY_MS: Record<ShareExpiry, number | null> = { '1d': DAY_MS, '7d': 7 * DAY_MS, '30d': 30 * DAY_MS, never: null };

/**
 * What a link shows. `session`: the branch up to `sha`; `live`: the branch at the session's
 * newest turn commit when it is opened (`sha` null); `turn`: only the messages turn `turn` added.
 */
export type ShareScope = 'session' | 'live' | 'turn';

/** One link as stored in `<authDir>/share-links.json`. */
interface ShareRecord {
  /** the link's secret: `/s/<id>` */
  id: string;
  userId: string;
  sessionId: string;
  scope: ShareScope;
  /** the turn commit the link is pinned to; null for a live link */
  sha: string | null;
  /** that commit's turn number; null for a live link */
  turn: number | null;
  /**
   * the session's title when the link was pinned (a rename after it does not reach the link);
   * null for a live link, and absent from links made before it was kept
   */
  title?: string | null;
  toolCalls: boolean;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
}

/** A link as its owner sees it. */
export interface ShareLink extends ShareRecord {
  expired: boolean;
}

/** The commit a pinned link points at. */
export interface PinnedTurn {
  sha: string;
  turn: number;
  /** the session's title as the owner saw it when pinning */
  title?: string;
}

export interface CreateShareInput {
  sessionId: string;
  scope: ShareScope;
  /** required unless scope is `live` */
  pin: PinnedTurn | null;
  expires: ShareExpiry;
  toolCalls: boolean;
}

export interface UpdateShareInput {
  /** re-pin to this turn (the session's newest, for "Update") */
  pin?: PinnedTurn;
  /** switch between following the head and a pinned snapshot (then `pin` is required) */
  live?: boolean;
  /** a new lifetime, counted from now */
  expires?: ShareExpiry;
  toolCalls?: boolean;
}

/**
 * Every user's share links in one small file under data/auth (0600, written atomically), held
 * in a map by id: opening a link is one lookup whoever owns it. The id is kept as it is, not
 * hashed, because its owner copies the link again from the dialog and Settings; the file sits
 * beside the users' data that the link opens, with the same protection.
 */
export class ShareLinkStore {
  private readonly path: string;
  private readonly byId = new Map<string, ShareRecord>();

  constructor(authDir: string, private readonly now: Clock = Date.now) {
    this.path = join(authDir, 'share-links.json');
    for (const record of this.load()) this.byId.set(record.id, record);
  }

  create(userId: string, input: CreateShareInput): ShareLink {
    const pin = pinOf(input.scope, input.pin);
    const now = this.now();
    let id = newShareId();
    while (this.byId.has(id)) id = newShareId();
    const record: ShareRecord = {
      id,
      userId,
      sessionId: input.sessionId,
      scope: input.scope,
      sha: pin?.sha ?? null,
      turn: pin?.turn ?? null,
      title: pin?.title ?? null,
      toolCalls: input.toolCalls,
      createdAt: now,
      updatedAt: now,
      expiresAt: expiryFrom(now, input.expires),
    };
    this.commit(() => this.byId.set(id, record), () => this.byId.delete(id));
    return this.view(record);
  }

  /** The owner's links, newest first; `sessionId` narrows to one session's. Expired ones stay listed, marked, until revoked. */
  list(userId: string, sessionId?: string): ShareLink[] {
    const mine = [...this.byId.values()].filter((r) => r.userId === userId && (sessionId === undefined || r.sessionId === sessionId));
    return mine.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1)).map((r) => this.view(r));
  }

  /** One of the owner's links; another user's id, or one that never was, is NOT_FOUND alike. */
  get(userId: string, id: string): ShareLink {
    return this.view(this.owned(userId, id));
  }

  update(userId: string, id: string, input: UpdateShareInput): ShareLink {
    const record = this.owned(userId, id);
    const next: ShareRecord = { ...record, updatedAt: this.now() };
    if (input.live === true) {
      next.scope = 'live';
      next.sha = null;
      next.turn = null;
      next.title = null;
    } else if (input.live === false && record.scope === 'live') {
      next.scope = 'session';
    }
    if (input.pin && next.scope !== 'live') {
      next.sha = input.pin.sha;
      next.turn = input.pin.turn;
      next.title = input.pin.title ?? null;
    }
    if (next.scope !== 'live' && next.sha === null) throw new ShareError('BAD_REQUEST', 'a pinned link needs a turn commit to point at');
    if (input.expires !== undefined) next.expiresAt = expiryFrom(next.updatedAt, input.expires);
    if (input.toolCalls !== undefined) next.toolCalls = input.toolCalls;
    this.commit(() => this.byId.set(id, next), () => this.byId.set(id, record));
    return this.view(next);
  }

  /** Gone at once: the very next request for it finds nothing. */
  revoke(userId: string, id: string): void {
    const record = this.owned(userId, id);
    this.commit(() => this.byId.delete(id), () => this.byId.set(id, record));
  }

  /** A deleted session's links go with it. */
  revokeSession(userId: string, sessionId: string): number {
    const gone = [...this.byId.values()].filter((r) => r.userId === userId && r.sessionId === sessionId);
    if (gone.length === 0) return 0;
    this.commit(
      () => gone.forEach((r) => this.byId.delete(r.id)),
      () => gone.forEach((r) => this.byId.set(r.id, r)),
    );
    return gone.length;
  }

  /** The link a visitor opens: null for one never made, revoked or expired (the caller answers all three alike). */
  open(id: string): ShareLink | null {
    if (!isShareId(id)) return null;
    const record = this.byId.get(id);
    if (!record) return null;
    const link = this.view(record);
    return link.expired ? null : link;
  }

  private owned(userId: string, id: string): ShareRecord {
    const record = isShareId(id) ? this.byId.get(id) : undefined;
    if (!record || record.userId !== userId) throw new ShareError('NOT_FOUND', NO_SUCH_LINK);
    return record;
  }

  private view(record: ShareRecord): ShareLink {
    return { ...record, expired: record.expiresAt !== null && record.expiresAt <= this.now() };
  }

  /** Change the map, write the file; a failed write puts the map back, so memory never says more than disk. */
  private commit(change: () => void, undo: () => void): void {
    change();
    try {
      atomicWriteFileSync(this.path, `${JSON.stringify({ version: 1, links: [...this.byId.values()] }, null, 2)}\n`);
    } catch (error) {
      undo();
      throw error;
    }
  }

  private load(): ShareRecord[] {
    try {
      const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as { links?: unknown };
      if (!Array.isArray(parsed.links)) throw new Error(`${this.path} is not a share-links file`);
      return (parsed.links as ShareRecord[]).filter((r) => isShareId(r?.id));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }
}

function pinOf(scope: ShareScope, pin: PinnedTurn | null): PinnedTurn | null {
  if (scope === 'live') return null;
  if (!pin) throw new ShareError('BAD_REQUEST', 'this session has no finished turn yet: there is nothing to share');
  return pin;
}

function expiryFrom(now: number, expires: ShareExpiry): number | null {
  const ms = EXPIRY_MS[expires];
  return ms === null ? null : now + ms;
}
