import type { LiveEventMap } from '@/server/events/live-events';

export type { LiveEventMap };
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
