import { join } from 'node:path';
import { readJsonFile, writeJsonFile } from '../../fs/user-state-file.js';
import { ConflictError } from '../errors.js';
import { isSessionId } from '../ids.js';

/** `users/<id>/bookmarks.json`: the user's bookmarked messages (DESIGN §16); a move carries the folder. */
export const BOOKMARKS_FILE = 'bookmarks.json';
/** Enough for anyone who reads them; the whole file is rewritten on each change, so it stays bounded. */
export const MAX_BOOKMARKS = 5000;
/** How much of the message a bookmark keeps to show in the Bookmarks list without opening the session. */
export const BOOKMARK_SNIPPET_CHARS = 200;

/** One bookmark as stored: `createdAt` in Unix seconds, like everything on disk. */
export interface StoredBookmark {
  sessionId: string;
  messageId: string;
  role: string;
  snippet: string;
  createdAt: number;
}

interface BookmarksDocument {
  version: 1;
  bookmarks: StoredBookmark[];
}

/** The first words of a message, on one line. */
export function bookmarkSnippet(content: string): string {
  const line = content.replace(/\s+/gu, ' ').trim();
  const chars = [...line];
  return chars.length <= BOOKMARK_SNIPPET_CHARS ? line : `${chars.slice(0, BOOKMARK_SNIPPET_CHARS - 1).join('')}…`;
}

function isStoredBookmark(value: unknown): value is StoredBookmark {
  const entry = value as Partial<StoredBookmark> | null;
  return (
    typeof entry === 'object' && entry !== null &&
    isSessionId(entry.sessionId) && typeof entry.messageId === 'string' &&
    typeof entry.role === 'string' && typeof entry.snippet === 'string' && typeof entry.createdAt === 'number'
  );
}

const keyOf = (sessionId: string, messageId: string) => `${sessionId}\u0000${messageId}`;

/**
 * One user's bookmarks, read once and written whole and atomically on each change. Every method
 * is synchronous, so two requests of the same process never interleave a read and a write.
 */
export class BookmarkFile {
  private entries: Map<string, StoredBookmark> | null = null;

  constructor(private readonly stateDir: string) {}

  private get path(): string {
    return join(this.stateDir, BOOKMARKS_FILE);
  }

  private load(): Map<string, StoredBookmark> {
    if (this.entries) return this.entries;
    const doc = readJsonFile(this.path) as Partial<BookmarksDocument> | null;
    const entries = new Map<string, StoredBookmark>();
    // An entry of another shape (hand-edited, a later version) is left out, not fatal.
    for (const entry of Array.isArray(doc?.bookmarks) ? doc.bookmarks : []) if (isStoredBookmark(entry)) entries.set(keyOf(entry.sessionId, entry.messageId), entry);
    this.entries = entries;
    return entries;
  }

  private save(entries: Map<string, StoredBookmark>): void {
    writeJsonFile(this.path, { version: 1, bookmarks: [...entries.values()] } satisfies BookmarksDocument);
    this.entries = entries;
  }

  has(sessionId: string, messageId: string): boolean {
    return this.load().has(keyOf(sessionId, messageId));
  }

  /** The bookmark, added unless it was there already (`added` false then). */
  add(entry: StoredBookmark): { bookmark: StoredBookmark; added: boolean } {
    const current = this.load();
    const existing = current.get(keyOf(entry.sessionId, entry.messageId));
    if (existing) return { bookmark: existing, added: false };
    if (current.size >= MAX_BOOKMARKS) throw new ConflictError(`at most ${MAX_BOOKMARKS} bookmarks: remove some first`);
    const next = new Map(current);
    next.set(keyOf(entry.sessionId, entry.messageId), entry);
    this.save(next);
    return { bookmark: entry, added: true };
  }

  /** Whether there was such a bookmark. */
  remove(sessionId: string, messageId: string): boolean {
    const current = this.load();
    if (!current.has(keyOf(sessionId, messageId))) return false;
    const next = new Map(current);
    next.delete(keyOf(sessionId, messageId));
    this.save(next);
    return true;
  }

  /** Every bookmark of a deleted session goes with it (so its words do not outlive it here). */
  dropSession(sessionId: string): number {
    const current = this.load();
    const next = new Map([...current].filter(([, entry]) => entry.sessionId !== sessionId));
    const dropped = current.size - next.size;
    if (dropped > 0) this.save(next);
    return dropped;
  }

  /** Newest first (ties by session and message id, so the order is stable). */
  list(sessionId?: string): StoredBookmark[] {
    const all = [...this.load().values()].filter((entry) => sessionId === undefined || entry.sessionId === sessionId);
    return all.sort((a, b) => b.createdAt - a.createdAt || a.sessionId.localeCompare(b.sessionId) || a.messageId.localeCompare(b.messageId));
  }
}
