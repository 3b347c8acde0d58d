import 'server-only';
import { LRUCache } from 'lru-cache';
import { renderPool } from './render-pool';
import type { PlainReason } from './render-protocol';

export type { PlainReason } from './render-protocol';

/**
 * Longer messages are shown as plain text: Markdown's cost grows faster than the text (a 9 MB
 * nested list took over ten minutes), and a reply this long is a log or a dump, not prose.
 */
export const MAX_MARKDOWN_CHARS = 100_000;

/** A message as the page shows it: sanitised HTML, or its text as it is and why. */
export type RenderedMarkdown = { html: string } | { text: string; plain: PlainReason };

/**
 * Rendered messages by reader and text. A message never changes once written, so a page opened
 * again (or its newest part fetched again after an append) renders only what is new; a message
 * that fell back to text is remembered too, so it is not tried again on every visit. Per reader:
 * a hit is much faster than a render, so a shared cache would tell one user whether anyone else
 * holds a given text. Bounded by the size of the texts kept.
 */
const shared = globalThis as typeof globalThis & { __emRendered?: LRUCache<string, Promise<RenderedMarkdown>> };
const rendered = (shared.__emRendered ??= new LRUCache<string, Promise<RenderedMarkdown>>({
  maxSize: 32 * 1024 * 1024,
  sizeCalculation: (_value, key) => key.length * 3 + 64,
}));

/**
 * A render stopped at the deadline is remembered for this long only: it may have been the
 * machine that was slow, not the message, and that should not leave it unformatted for good.
 */
export const DEADLINE_FALLBACK_TTL_MS = 10 * 60_000;

async function render(text: string, owner: string): Promise<RenderedMarkdown | 'unavailable'> {
  const outcome = await renderPool().render(owner, text);
  if ('html' in outcome) return { html: outcome.html };
  return outcome.plain === 'unavailable' ? 'unavailable' : { text, plain: outcome.plain };
}

/**
 * A message's Markdown rendered for `viewerId`, off the request thread (render-pool.ts) within
 * a deadline: GFM, sanitised, code highlighted (markdown-html.ts). A message too large, too deep,
 * too slow or failing comes back as its plain text, for the page to show escaped. Never rejects.
 * `viewerId` names the cache; `owner` is whose turn in the pool it takes (the viewer unless
 * told: a shared page renders as the user who made the link, share-render.ts).
 */
export function renderMarkdown(text: string, viewerId: string, owner: string = viewerId): Promise<RenderedMarkdown> {
  if (text.length > MAX_MARKDOWN_CHARS) return Promise.resolve({ text, plain: 'too-large' });
  const key = `${viewerId}\u0000${text}`;
  let result = rendered.get(key);
  if (!result) {
    const pending = render(text, owner).then((outcome): RenderedMarkdown => {
      const current = rendered.peek(key) === pending;
      if (outcome === 'unavailable') {
        // The pool could not take it (shutting down, or no worker would start): not the message's fault.
        if (current) rendered.delete(key);
        return { text, plain: 'failed' };
      }
      if (current && 'plain' in outcome && outcome.plain === 'deadline') rendered.set(key, pending, { ttl: DEADLINE_FALLBACK_TTL_MS });
      return outcome;
    });
    result = pending;
    rendered.set(key, result);
  }
  return result;
}
