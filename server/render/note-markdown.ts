import { LRUCache } from 'lru-cache';
import { renderPool } from './render-pool';
import type { PlainReason } from './render-protocol';

/** A note as the page shows it: sanitised HTML, or its text as it is and why. */
export type RenderedNote = { html: string } | { text: string; plain: PlainReason };

/**
 * Notes rendered, by reader and text: every tab of the user refetches note.list on note_changed, and
 * only the first should wait for the pool. Per reader, as markdown.ts keeps messages; only HTML is kept.
 */
const rendered = new LRUCache<string, string>({ maxSize: 8 * 1024 * 1024, sizeCalculation: (html, key) => html.length + key.length + 64 });

async function renderOnce(text: string, ownerId: string): Promise<RenderedNote> {
  const outcome = await renderPool().render(ownerId, text);
  if ('html' in outcome) return { html: outcome.html };
  return { text, plain: outcome.plain === 'unavailable' ? 'failed' : outcome.plain };
}

/**
 * A note's Markdown rendered exactly as a message's (render-pool.ts: GFM, raw HTML shown as text,
 * sanitised), taking `ownerId`'s turn in the pool. A render stopped at the deadline is tried once more
 * (a busy machine, not the note: notes are ≤ 64 KiB). Without 'server-only' (unlike markdown.ts), since
 * note.list also runs in the API server that answers before Next. Never rejects.
 */
export async function renderNote(text: string, ownerId: string): Promise<RenderedNote> {
  const key = `${ownerId}\u0000${text}`;
  const cached = rendered.get(key);
  if (cached !== undefined) return { html: cached };
  let outcome = await renderOnce(text, ownerId);
  if ('plain' in outcome && outcome.plain === 'deadline') outcome = await renderOnce(text, ownerId);
  if ('html' in outcome) rendered.set(key, outcome.html);
  return outcome;
}
