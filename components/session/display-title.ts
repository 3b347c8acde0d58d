import type { SessionDetail } from './types';

const PLACEHOLDER_TITLES = new Set(['', 'New conversation', 'Untitled']);

/** DESIGN §7: the title, the preview while untitled, and a [Channel] prefix for channel sessions. */
export function displayTitle(session: Pick<SessionDetail, 'title' | 'preview' | 'channel'>): string {
  const title = PLACEHOLDER_TITLES.has(session.title.trim()) ? (session.preview ?? '') || session.title || 'Untitled' : session.title;
  return session.channel ? `[${session.channel}] ${title}` : title;
}
