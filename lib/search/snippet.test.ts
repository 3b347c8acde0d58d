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

describe('snippetOf a Markdown message', () => {
  const text = (segments: ReturnType<typeof snippetOf>) => segments.map((segment) => segment.text).join('');

  it('shows the words, not the syntax', () => {
    const markdown = '## Fix\n\nThe **retry** loop in [`client.ts`](src/client.ts) ~~never~~ stops:\n\n```ts\nwhile (true) retry();\n```\n\n- one\n- two';
    expect(text(snippetOf(markdown, ['retry'], { markdown: true }))).toBe('Fix The retry loop in client.ts never stops: while (true) retry(); one two');
    expect(snippetOf(markdown, ['retry'], { markdown: true }).filter((segment) => segment.match)).toHaveLength(2);
  });

  it('keeps the same text for titles and tool records (no markdown option)', () => {
    expect(text(snippetOf('**not markdown** here', ['here']))).toBe('**not markdown** here');
  });

  it('keeps raw HTML as plain text', () => {
    expect(text(snippetOf('<img src=x onerror=alert(1)> needle', ['needle'], { markdown: true }))).toBe('<img src=x onerror=alert(1)> needle');
  });

  it('reads only a window of a long message around the first match', () => {
    const markdown = `${'**filler** words '.repeat(5_000)}the *needle* is here${' and more'.repeat(5_000)}`;
    const segments = snippetOf(markdown, ['needle'], { markdown: true });
    expect(segments.find((segment) => segment.match)).toEqual({ text: 'needle', match: true });
    expect(text(segments)).not.toContain('*');
    expect(text(segments).length).toBeLessThan(200);
  });
});
