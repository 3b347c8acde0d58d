import { EventEmitter } from 'node:events';
import type { AppendedMessage, SessionRow } from './types.js';

/** DESIGN §6: everything a client must see, with its payload. */
export interface StoreEventMap {
  session_created: SessionRow;
  session_updated: { id: string } & Partial<SessionRow>;
  session_deleted: { id: string };
  message_appended: { sessionId: string; message: AppendedMessage };
  turn_committed: { sessionId: string; turn: number; sha: string };
  project_commit_skipped: { sessionId: string; projectId: string; reason: string; message: string };
  /** DESIGN §16: a note set (text) or deleted (null) on the session (messageId null) or a message */
  note_changed: { sessionId: string; messageId: string | null; text: string | null };
  /** DESIGN §16: a message bookmarked or not any more; messageId null: every bookmark of a deleted session dropped */
  bookmark_changed: { sessionId: string; messageId: string | null; bookmarked: boolean };
  /** a saved view saved or deleted (its count moves with session_updated, not with this) */
  view_changed: { name: string; saved: boolean };
}

export type StoreEventType = keyof StoreEventMap;

export type StoreEvent = {
  [K in StoreEventType]: { type: K; data: StoreEventMap[K] };
}[StoreEventType];

/** One 'event' channel carrying the typed union, so a subscriber needs one listener. */
export class StoreEvents {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  emit<K extends StoreEventType>(type: K, data: StoreEventMap[K]): void {
    this.emitter.emit('event', { type, data } as StoreEvent);
  }

  on(channel: 'event', listener: (event: StoreEvent) => void): () => void {
    this.emitter.on(channel, listener);
    return () => this.emitter.off(channel, listener);
  }

  off(channel: 'event', listener: (event: StoreEvent) => void): void {
    this.emitter.off(channel, listener);
  }
}
