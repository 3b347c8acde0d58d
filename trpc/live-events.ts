import type { RouterOutputs } from './types';

type Row = RouterOutputs['session']['list']['rows'][number];
type Message = RouterOutputs['message']['append'];

/** DESIGN §6: the events of `/api/events`, as the browser receives them. */
export interface LiveEventMap {
  session_created: Row;
  session_updated: { id: string } & Partial<Row>;
  session_deleted: { id: string };
  message_appended: { sessionId: string; message: Message };
  turn_committed: { sessionId: string; turn: number; sha: string };
  project_commit_skipped: { sessionId: string; projectId: string; reason: string; message: string };
  /** `offset`: where `delta` starts in the whole reply (UTF-16 units), so a late tab joins the stream */
  chat_delta: { sessionId: string; messageId: string; delta: string; offset?: number };
  chat_done: { sessionId: string; messageId: string; status?: string };
  chat_error: { sessionId: string; messageId?: string; message: string };
  /** the stream cannot replay what this tab missed (or it reconnected from scratch): refetch */
  resync: Record<string, never>;
}

export type LiveEventType = keyof LiveEventMap;
export type LiveEvent = { [K in LiveEventType]: { type: K; data: LiveEventMap[K] } }[LiveEventType];
export const LIVE_EVENT_TYPES: readonly LiveEventType[] = [
  'session_created',
  'session_updated',
  'session_deleted',
  'message_appended',
  'turn_committed',
  'project_commit_skipped',
  'chat_delta',
  'chat_done',
  'chat_error',
  'resync',
];
