import { describe, expect, it } from 'vitest';
import { safeCallbackUrl } from './sign-in-messages';

describe('safeCallbackUrl', () => {
  it('keeps a path of this app with its query and fragment', () => {
    expect(safeCallbackUrl('/settings')).toBe('/settings');
    expect(safeCallbackUrl('/s/abc?tab=graph#m-3')).toBe('/s/abc?tab=graph#m-3');
    expect(safeCallbackUrl('/chats?q=%2F%2Fx')).toBe('/chats?q=%2F%2Fx');
  });

  it('sends anything else to the home page', () => {
    for (const value of [undefined, '', 'settings', 'https://evil.example/', '//evil.example', 'javascript:alert(1)']) {
      expect(safeCallbackUrl(value), String(value)).toBe('/');
    }
  });

  it('refuses what a browser would turn into another host', () => {
    for (const value of [
      '/\t/evil.example', // %09: browsers drop it, leaving //evil.example
      '/\r/evil.example',
      '/\n/evil.example',
      '/\\evil.example',
      '/\\/evil.example',
      '/\u0000/evil.example',
      '/\u007f/evil.example',
      '/.//evil.example', // resolves to the path //evil.example
      '/..//evil.example',
      '/%2e//evil.example',
    ]) {
      expect(safeCallbackUrl(value), JSON.stringify(value)).toBe('/');
    }
  });

  it('gives the browser nothing it would resolve off this origin', () => {
    const probes = ['/a', '/\t/x.example', '/.//x.example', '/%09/x.example', '/a/../../b', '/@x.example'];
    for (const value of probes) {
      const target = new URL(safeCallbackUrl(value), 'https://app.example');
      expect(target.origin, value).toBe('https://app.example');
    }
  });
});
