import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonFile, userStatePath, USER_STATE_ID_PATTERN, writeJsonFile } from '../fs/user-state-file.js';
import type { Clock } from './clock.js';
import { NO_SUCH_LINK, ShareError } from './errors.js';
import { isShareId, newShareId } from './share-id.js';
import type { ShareIndex, ShareOwnerEntry } from './share-index.js';

/** A user's links, in their own folder: a move carries them. */
export const SHARE_LINKS_FILE = 'share-links.json';

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

/** One link as stored in `users/<id>/share-links.json`. */
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
 * Share links, each in its owner's folder (`users/<id>/share-links.json`, 0600, written
 * atomically), so a move carries them; the index (`ShareIndex`) says whose folder a link id is
 * in, since `/s/<id>` names no user. The id is kept as it is, not hashed, because its owner
 * copies the link again from the dialog and Settings. The files are read on each use (a few
 * hundred bytes): nothing cached can outlive a move away and back.
 */
export class ShareLinkStore {
  constructor(
    private readonly dataDir: string,
    private readonly index: ShareIndex,
    private readonly now: Clock = Date.now,
  ) {}

  async create(userId: string, input: CreateShareInput): Promise<ShareLink> {
    const pin = pinOf(input.scope, input.pin);
    const now = this.now();
    const records = this.load(userId);
    let id = newShareId();
    while (records.some((r) => r.id === id) || (await this.index.ownerOf(id)) !== null) id = newShareId();
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
    // The index first: a link on disk that the index does not know could never be opened.
    await this.index.add([{ id, userId }]);
    try {
      // Read again: another of the user's links may have been made while the index answered.
      this.save(userId, [...this.load(userId), record]);
    } catch (error) {
      await this.index.remove([id]).catch(() => undefined);
      throw error;
    }
    return this.view(record);
  }

  /** The owner's links, newest first; `sessionId` narrows to one session's. Expired ones stay listed, marked, until revoked. */
  list(userId: string, sessionId?: string): ShareLink[] {
    const mine = this.load(userId).filter((r) => sessionId === undefined || r.sessionId === sessionId);
    return mine.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1)).map((r) => this.view(r));
  }

  /** One of the owner's links; another user's id, or one that never was, is NOT_FOUND alike. */
  get(userId: string, id: string): ShareLink {
    return this.view(this.owned(userId, id).record);
  }

  update(userId: string, id: string, input: UpdateShareInput): ShareLink {
    const { record, records } = this.owned(userId, id);
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
    this.save(userId, records.map((r) => (r.id === id ? next : r)));
    return this.view(next);
  }

  /** Gone at once: the very next request for it finds nothing (the owner's file is what counts; the index follows). */
  async revoke(userId: string, id: string): Promise<void> {
    const { records } = this.owned(userId, id);
    this.save(userId, records.filter((r) => r.id !== id));
    await this.index.remove([id]);
  }

  /** A deleted session's links go with it. */
  async revokeSession(userId: string, sessionId: string): Promise<number> {
    const records = this.load(userId);
    const gone = records.filter((r) => r.sessionId === sessionId);
    if (gone.length === 0) return 0;
    this.save(userId, records.filter((r) => r.sessionId !== sessionId));
    await this.index.remove(gone.map((r) => r.id));
    return gone.length;
  }

  /** The link a visitor opens: null for one never made, revoked or expired (the caller answers all three alike). */
  async open(id: string): Promise<ShareLink | null> {
    if (!isShareId(id)) return null;
    const userId = await this.index.ownerOf(id);
    if (userId === null || !USER_STATE_ID_PATTERN.test(userId)) return null;
    const record = this.load(userId).find((r) => r.id === id);
    if (!record) return null;
    const link = this.view(record);
    return link.expired ? null : link;
  }

  private owned(userId: string, id: string): { record: ShareRecord; records: ShareRecord[] } {
    const records = isShareId(id) ? this.load(userId) : [];
    const record = records.find((r) => r.id === id);
    if (!record || record.userId !== userId) throw new ShareError('NOT_FOUND', NO_SUCH_LINK);
    return { record, records };
  }

  private view(record: ShareRecord): ShareLink {
    return { ...record, expired: record.expiresAt !== null && record.expiresAt <= this.now() };
  }

  private load(userId: string): ShareRecord[] {
    return readLinks(userStatePath(this.dataDir, userId, SHARE_LINKS_FILE)).filter((r) => r.userId === userId);
  }

  private save(userId: string, records: ShareRecord[]): void {
    writeJsonFile(userStatePath(this.dataDir, userId, SHARE_LINKS_FILE), { version: 1, links: records });
  }
}

function readLinks(path: string): ShareRecord[] {
  const parsed = readJsonFile(path) as { links?: unknown } | null;
  if (parsed === null) return [];
  if (!Array.isArray(parsed.links)) throw new Error(`${path} is not a share-links file`);
  return (parsed.links as ShareRecord[]).filter((r) => isShareId(r?.id) && typeof r.userId === 'string');
}

/**
 * Start-up: the links of the old instance-wide `<authDir>/share-links.json` (before they lived in
 * their owners' folders) moved into `users/<id>/share-links.json`, a link already there kept as it
 * is. Returns every moved link for the index, and `finish` to remove the old file once the index
 * has them; run again after a crash in between, it moves nothing twice. null: nothing to migrate.
 */
export function migrateShareLinks(authDir: string, dataDir: string): { entries: ShareOwnerEntry[]; finish: () => void } | null {
  const oldPath = join(authDir, SHARE_LINKS_FILE);
  const old = readLinks(oldPath);
  if (old.length === 0 && readJsonFile(oldPath) === null) return null;
  const byUser = new Map<string, ShareRecord[]>();
  for (const record of old) {
    if (!USER_STATE_ID_PATTERN.test(record.userId)) continue;
    byUser.set(record.userId, [...(byUser.get(record.userId) ?? []), record]);
  }
  for (const [userId, records] of byUser) {
    const path = userStatePath(dataDir, userId, SHARE_LINKS_FILE);
    const present = readLinks(path);
    const fresh = records.filter((record) => !present.some((p) => p.id === record.id));
    if (fresh.length > 0) writeJsonFile(path, { version: 1, links: [...present, ...fresh] });
  }
  return {
    entries: [...byUser.values()].flat().map(({ id, userId }) => ({ id, userId })),
    finish: () => rmSync(oldPath, { force: true }),
  };
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
