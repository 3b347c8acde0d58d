import type { LiveEventMap } from '@/server/events/live-events';

export type { LiveEventMap };
export type LiveEventType = keyof LiveEventMap;
export type LiveEvent = { [K in LiveEventType]: { type: K; data: LiveEventMap[K] } }[LiveEventType];
/** Every event type, as an object so the compiler refuses a missing one: a tab listens to what this lists. */
const EVERY_LIVE_EVENT: Record<LiveEventType, true> = {
  session_created: true,
  session_updated: true,
  session_deleted: true,
  message_appended: true,
  turn_committed: true,
  project_commit_skipped: true,
  note_changed: true,
  bookmark_changed: true,
  view_changed: true,
  chat_delta: true,
  chat_done: true,
  chat_error: true,
  resync: true,
};
export const LIVE_EVENT_TYPES = Object.keys(EVERY_LIVE_EVENT) as readonly LiveEventType[];
