import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';

vi.mock('server-only', () => ({}));
const { renderMarkdown } = await import('./markdown');

describe('images in a rendered message', () => {
  it('shows an attachment and drops every other path of this site', async () => {
    const out = renderToStaticMarkup(
      await renderMarkdown('![ok](/api/attachments/s1/cat.png) ![stream](/api/events) ![api](/api/trpc/token.list) ![page](/settings) ![up](/api/attachments/s1/%2e%2e)'),
    );
    expect(out).toContain('<img src="/api/attachments/s1/cat.png" alt="ok"/>');
    expect(out.match(/<img/g)).toHaveLength(1);
  });
});
