import { describe, expect, it, vi } from 'vitest';

// The guard package throws outside a React server build; the renderer itself is what is tested.
vi.mock('server-only', () => ({}));
const { DEADLINE_FALLBACK_TTL_MS, MAX_MARKDOWN_CHARS, renderMarkdown } = await import('./markdown');
const { renderPool } = await import('./render-pool');
const { hostileMessages } = await import('../../e2e/fixtures/hostile-messages');

/** The process's render cache (markdown.ts keeps it on globalThis), to read what it keeps and for how long. */
function remainingTtl(viewerId: string, text: string): number {
  const cache = (globalThis as { __emRendered?: { getRemainingTTL(key: string): number } }).__emRendered!;
  return cache.getRemainingTTL(`${viewerId}\u0000${text}`);
}

// A worker starts at low priority (render-worker.ts): on a busy machine that alone can take many seconds.
describe('renderMarkdown', { timeout: 120_000 }, () => {
  it('renders Markdown to sanitised HTML off this thread', async () => {
    expect(await renderMarkdown('**bold** <b onclick="x()">raw</b>', 'user-a')).toEqual({
      html: '<p><strong>bold</strong> &lt;b onclick=&quot;x()&quot;&gt;raw&lt;/b&gt;</p>',
    });
  });

  it('shows 3,000 nested quotes as their text, and remembers it rather than rendering again', async () => {
    const text = `${'>'.repeat(3_000)} the end`;
    // Before: a stack overflow, a 500 for the page, and the same slow failure on every visit.
    expect(await renderMarkdown(text, 'user-a')).toEqual({ text, plain: 'too-deep' });
    const renders = renderPool().counts.rendered;
    expect(await renderMarkdown(text, 'user-a')).toEqual({ text, plain: 'too-deep' });
    expect(renderPool().counts.rendered).toBe(renders);
    // Refused for what it is: kept for as long as the cache keeps anything.
    expect(remainingTtl('user-a', text)).toBe(Infinity);
  });

  it('shows a message stopped at the deadline as text, and tries it again only after a while', async () => {
    const { brackets } = hostileMessages('ttl');
    expect(await renderMarkdown(brackets, 'user-a')).toEqual({ text: brackets, plain: 'deadline' });
    const renders = renderPool().counts.replaced;
    expect(await renderMarkdown(brackets, 'user-a')).toEqual({ text: brackets, plain: 'deadline' });
    expect(renderPool().counts.replaced).toBe(renders);
    // The machine may have been what was slow: the fallback expires.
    const ttl = remainingTtl('user-a', brackets);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(DEADLINE_FALLBACK_TTL_MS);
  });

  it('shows a message longer than the Markdown limit as text without rendering it', async () => {
    const text = `${'- item\n  '.repeat(MAX_MARKDOWN_CHARS / 9)}- last`;
    const renders = renderPool().counts.rendered;
    expect(await renderMarkdown(text, 'user-a')).toEqual({ text, plain: 'too-large' });
    expect(renderPool().counts.rendered).toBe(renders);
  });

  it("keeps one reader's rendered texts apart from another's: a cache hit tells nothing about other users", async () => {
    const text = 'a secret plan *only* Alice wrote';
    const first = renderPool().counts.rendered;
    const forAlice = await renderMarkdown(text, 'alice');
    expect(renderPool().counts.rendered).toBe(first + 1);
    // Bob writing the same text gets a render of his own, as slow as any first render.
    expect(await renderMarkdown(text, 'bob')).toEqual(forAlice);
    expect(renderPool().counts.rendered).toBe(first + 2);
    // Alice again: her own cache.
    await renderMarkdown(text, 'alice');
    expect(renderPool().counts.rendered).toBe(first + 2);
  });
});
