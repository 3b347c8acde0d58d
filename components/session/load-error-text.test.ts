import { describe, expect, it } from 'vitest';
import { loadErrorText } from './load-error-text';

describe('loadErrorText', () => {
  it('turns Next\'s 404 digest into words and keeps any other message', () => {
    const notFound = Object.assign(new Error('NEXT_HTTP_ERROR_FALLBACK;404'), { digest: 'NEXT_HTTP_ERROR_FALLBACK;404' });
    expect(loadErrorText(notFound)).toBe('this session no longer exists (it was deleted, or is not yours)');
    expect(loadErrorText(Object.assign(new Error('x'), { digest: 'NEXT_HTTP_ERROR_FALLBACK;404' }))).toMatch(/no longer exists/);
    expect(loadErrorText(new Error('network down'))).toBe('network down');
    expect(loadErrorText('plain')).toBe('plain');
  });
});
