import type { StoreEventMap } from '@/lib/store/index';

/** The chat dispatcher's events (server/chat), sent on the same stream as the store's. */
export interface ChatEventMap {
  /** `offset`: where `delta` starts in the whole reply (UTF-16 units), so a late tab joins the stream */
  chat_delta: { sessionId: string; messageId: string; delta: string; offset?: number };
  chat_done: { sessionId: string; messageId: string; status?: string };
  chat_error: { sessionId: string; messageId?: string; message: string };
}

export type ChatEvent = { [K in keyof ChatEventMap]: { type: K; data: ChatEventMap[K] } }[keyof ChatEventMap];

/** DESIGN §6: every event of `/api/events`, as a browser receives it. */
export type LiveEventMap = StoreEventMap &
  ChatEventMap & {
    /** the stream cannot replay what this tab missed (or it reconnected from scratch): refetch */
    resync: Record<string, never>;
  };
