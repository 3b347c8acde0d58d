/** The index's public shapes: what it reads from, its status, a hit and a page of hits. */
import type { Message, SessionRow, ChangeFeed } from '../store/index.js';
import type { DocumentKind } from './documents.js';
import type { SqliteDriver } from './sqlite.js';
import type { SnippetSegment } from './snippet.js';

export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;

/** What the index is built from and checks hits against: the user's own session store. */
export interface SearchSource {
  /** every session id, oldest updated first (so that newer sessions get the higher row ids) */
  sessionIds(): string[];
  /** the session's row now, or null once it is deleted */
  row(sessionId: string): SessionRow | null;
  /** every node of the session, by seq */
  nodes(sessionId: string): Promise<Message[]>;
  /** these nodes of the session, whole (a large message, whose live notice is only its stub) */
  nodesById?(sessionId: string, ids: readonly string[]): Promise<Message[]>;
  /** the session's notes (git notes, DESIGN §16), read with the whole session */
  notes?(sessionId: string): Promise<Array<{ messageId: string | null; text: string }>>;
  /**
   * The user's change feed (DESIGN §3): followed live, and read on from the saved position when a
   * cleanly closed file is opened, so whatever wrote the history (this process or another) is
   * indexed. A file not closed cleanly is rebuilt, feed or not.
   */
  changes?: Pick<ChangeFeed, 'lastSeq' | 'readAfter' | 'subscribe' | 'release'>;
}

export type IndexState = 'ready' | 'catching_up';

export interface IndexStatus {
  state: IndexState;
  /** sessions read so far by the rebuild under way, and how many it has to read */
  done: number;
  total: number;
}

export interface SearchHit {
  sessionId: string;
  /** the conversation message to open at; null for a title hit */
  messageId: string | null;
  kind: DocumentKind;
  title: string;
  preview: string | null;
  channel: string | null;
  snippet: SnippetSegment[];
  archived: boolean;
  updatedAt: number;
}

export interface SearchPage {
  hits: SearchHit[];
  nextCursor: string | null;
  status: IndexStatus;
}

export interface SearchOptions {
  scope?: 'active' | 'archived' | 'all';
  limit?: number;
  cursor?: string | null;
}

export interface SearchIndexOptions {
  path: string;
  source: SearchSource;
  driver?: SqliteDriver;
  /** where a failed background write or rebuild is reported (default console.error) */
  onError?: (error: unknown) => void;
}
