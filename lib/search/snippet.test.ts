import { describe, expect, it } from 'vitest';
import { snippetOf } from './snippet.js';

describe('snippetOf', () => {
  it('marks every occurrence of the terms, case-insensitively, as data', () => {
    expect(snippetOf('The Retry policy: retry three times', ['retry'])).toEqual([
      { text: 'The ', match: false },
      { text: 'Retry', match: true },
      { text: ' policy: ', match: false },
      { text: 'retry', match: true },
      { text: ' three times', match: false },
    ]);
  });

  it('keeps markup as plain text', () => {
    expect(snippetOf('<img src=x onerror=alert(1)> needle', ['needle'])).toEqual([
      { text: '<img src=x onerror=alert(1)> ', match: false },
      { text: 'needle', match: true },
    ]);
  });

  it('shows the part around the first match of a long text, with ellipses', () => {
    const text = `${'lorem ipsum '.repeat(50)}the needle is here${' dolor sit'.repeat(50)}`;
    const segments = snippetOf(text, ['needle']);
    expect(segments[0]!.text.startsWith('…')).toBe(true);
    expect(segments.find((segment) => segment.match)).toEqual({ text: 'needle', match: true });
    expect(segments[segments.length - 1]!.text.endsWith('…')).toBe(true);
    expect(segments.map((segment) => segment.text).join('').length).toBeLessThan(200);
  });

  it('finds CJK terms and never cuts a surrogate pair', () => {
    expect(snippetOf('日本語のエラーメッセージを直す', ['エラー'])).toEqual([
      { text: '日本語の', match: false },
      { text: 'エラー', match: true },
      { text: 'メッセージを直す', match: false },
    ]);
    const emoji = `${'😀'.repeat(100)}x`;
    for (const segment of snippetOf(emoji, ['x'])) expect(segment.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/u);
  });

  it('gives the start of the text when nothing matches there (a title hit on another word)', () => {
    expect(snippetOf('short text', ['absent'])).toEqual([{ text: 'short text', match: false }]);
  });
});
