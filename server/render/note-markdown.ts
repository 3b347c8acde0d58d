import { renderPool } from './render-pool';
import type { PlainReason } from './render-protocol';

/** A note as the page shows it: sanitised HTML, or its text as it is and why. */
export type RenderedNote = { html: string } | { text: string; plain: PlainReason };

/**
 * A note's Markdown rendered exactly as a message's (render-pool.ts: GFM, raw HTML shown as text,
 * sanitised), taking `ownerId`'s turn in the pool. Not cached like messages are: a note changes, and
 * a session holds a few. Without 'server-only' (unlike markdown.ts), since note.list also runs in the
 * API server that answers before Next. Never rejects.
 */
export async function renderNote(text: string, ownerId: string): Promise<RenderedNote> {
  const outcome = await renderPool().render(ownerId, text);
  if ('html' in outcome) return { html: outcome.html };
  return { text, plain: outcome.plain === 'unavailable' ? 'failed' : outcome.plain };
}
