import { NotFoundError } from '../errors.js';
import { assertNodeId, assertSessionId } from '../ids.js';
import { nowSeconds, secondsToMs } from '../time.js';
import { BookmarkFile, bookmarkSnippet, type StoredBookmark } from './bookmarks.js';
import { perStore, type OrganiseStore } from './organise-store.js';

/** A bookmark as bookmark.list answers it: `gone` when its session was deleted (its words are not shown then). */
export interface Bookmark {
  sessionId: string;
  messageId: string;
  role: string;
  snippet: string;
  /** ms */
  createdAt: number;
  title: string | null;
  preview: string | null;
  channel: string | null;
  gone: boolean;
}

/** DESIGN §16: one user's bookmarks (`users/<id>/bookmarks.json`), per user as the store is. */
export class UserBookmarks {
  private readonly file: BookmarkFile;

  constructor(private readonly store: OrganiseStore, private readonly now: () => number = nowSeconds) {
    this.file = new BookmarkFile(store.stateDir);
    // A deleted session's bookmarks go with it, and the other tabs hear of it.
    store.events.on('event', (event) => {
      if (event.type === 'session_deleted' && this.file.dropSession(event.data.id) > 0) {
        store.events.emit('bookmark_changed', { sessionId: event.data.id, messageId: null, bookmarked: false });
      }
    });
  }

  private toBookmark(entry: StoredBookmark): Bookmark {
    const row = this.store.getRow(entry.sessionId);
    return {
      sessionId: entry.sessionId,
      messageId: entry.messageId,
      role: entry.role,
      snippet: row ? entry.snippet : '',
      createdAt: secondsToMs(entry.createdAt),
      title: row ? row.title : null,
      preview: row ? row.preview : null,
      channel: row ? row.channel : null,
      gone: !row,
    };
  }

  /** A message bookmarked (again: nothing changes); NOT_FOUND for a session or message the user does not have. */
  async add(sessionId: string, messageId: string): Promise<Bookmark> {
    assertSessionId(sessionId);
    assertNodeId(messageId);
    const [message] = await this.store.getNodesById(sessionId, [messageId]);
    if (!message) throw new NotFoundError(`unknown message: ${messageId}`);
    const { bookmark, added } = this.file.add({ sessionId, messageId, role: message.role, snippet: bookmarkSnippet(message.content), createdAt: this.now() });
    if (added) this.store.events.emit('bookmark_changed', { sessionId, messageId, bookmarked: true });
    return this.toBookmark(bookmark);
  }

  /** Whether there was such a bookmark (a second tab removing the same one is no error). */
  remove(sessionId: string, messageId: string): { removed: boolean } {
    assertSessionId(sessionId);
    assertNodeId(messageId);
    const removed = this.file.remove(sessionId, messageId);
    if (removed) this.store.events.emit('bookmark_changed', { sessionId, messageId, bookmarked: false });
    return { removed };
  }

  /** Newest first; of one session when named. */
  list(sessionId?: string): Bookmark[] {
    if (sessionId !== undefined) assertSessionId(sessionId);
    return this.file.list(sessionId).map((entry) => this.toBookmark(entry));
  }
}

export const bookmarksOf = perStore((store) => new UserBookmarks(store));
