import { describe, expect, it } from 'vitest';
import { isAttachmentPath } from './attachment-path';

describe('isAttachmentPath', () => {
  it('takes a session attachment, escaped names included', () => {
    expect(isAttachmentPath('/api/attachments/s1/cat.png')).toBe(true);
    expect(isAttachmentPath('/api/attachments/abc_D-9/my%20photo.jpg')).toBe(true);
  });

  it('refuses every other path of this site', () => {
    for (const url of [
      '/api/events',
      '/api/events?since=1',
      '/api/trpc/user.me',
      '/settings',
      '/api/attachments/s1',
      '/api/attachments/s1/',
      '/api/attachments/s1/cat.png?x=1',
      '/api/attachments/s1/cat.png#x',
      '/api/attachments/s1/a/b.png',
      '/api/attachments/s1/..',
      '/api/attachments/s1/%2e%2e',
      '/api/attachments/s1/.%2E',
      '/api/attachments/s1/a%2fb',
      '/api/attachments/s1/a%5Cb',
      '/api/attachments/s1/a\\b',
      '/api/attachments/../events/x',
      '/api/attachments/%2e%2e/x',
      '/api/attachments/s1/%E0%A4%A',
      '//evil.example/api/attachments/s1/x.png',
      'https://evil.example/api/attachments/s1/x.png',
    ]) {
      expect(isAttachmentPath(url), url).toBe(false);
    }
  });

  it('names nothing a browser would resolve to another path', () => {
    for (const url of ['/api/attachments/s1/cat.png', '/api/attachments/s1/a%20b.png']) {
      expect(isAttachmentPath(url)).toBe(true);
      expect(new URL(url, 'https://app.example').pathname).toBe(url);
    }
  });
});
