import { describe, expect, it } from 'vitest';
import { markdownToHtml } from './markdown-html';

describe('images in a rendered message', () => {
  it('shows an attachment and drops every other path of this site', async () => {
    const out = await markdownToHtml(
      '![ok](/api/attachments/s1/cat.png) ![stream](/api/events) ![api](/api/trpc/token.list) ![page](/settings) ![up](/api/attachments/s1/%2e%2e)',
    );
    expect(out).toContain('<img src="/api/attachments/s1/cat.png" alt="ok"/>');
    expect(out.match(/<img/g)).toHaveLength(1);
  });
});
