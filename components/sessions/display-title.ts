import type { SessionRow } from './session-types';

// Titles that mean "not named yet" (entity-memory.zh.md §3.3, display fallback): show the preview.
const PLACEHOLDER_TITLES = new Set(['', 'new conversation', 'untitled']);
export const UNTITLED = 'Untitled session';

/**
 * What the sidebar and the Chats page call a session: the title, or the preview while it has
 * none, and a `[channel]` prefix for channel sessions (display only, never stored). A session with
 * neither still gets a name, so that every valid session is listed and reachable.
 */
export function displayTitle(row: Pick<SessionRow, 'title' | 'preview' | 'channel'>): string {
  const title = (row.title ?? '').trim();
  const preview = (row.preview ?? '').trim();
  const base = PLACEHOLDER_TITLES.has(title.toLowerCase()) ? preview || title || UNTITLED : title;
  return row.channel ? `[${row.channel}] ${base}` : base;
}
