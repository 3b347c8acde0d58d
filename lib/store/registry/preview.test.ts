import { describe, expect, it } from 'vitest';
import { previewOf } from './preview.js';
import { titleFromText, cleanModelTitle } from '../titles/truncate.js';
import { codePointLength } from '../text.js';

describe('preview (the seeds\' _truncate)', () => {
  it('keeps 80 code points and cuts 81 to 77 + …', () => {
    const eighty = 'x'.repeat(80);
    expect(previewOf(eighty)).toBe(eighty);
    expect(previewOf(`${eighty}y`)).toBe(`${'x'.repeat(77)}…`);
  });

  it('counts an emoji as one character and never cuts a surrogate pair', () => {
    const emoji = '😀'.repeat(80); // 160 UTF-16 units, 80 code points
    expect(previewOf(emoji)).toBe(emoji);
    const cut = previewOf('😀'.repeat(81))!;
    expect(codePointLength(cut)).toBe(78);
    expect(cut).toBe(`${'😀'.repeat(77)}…`);
    const mixed = previewOf(`${'a'.repeat(76)}😀😀😀😀😀`)!;
    expect(mixed).toBe(`${'a'.repeat(76)}😀…`);
  });

  it('trims and turns newlines into spaces; empty is none', () => {
    expect(previewOf('  one\ntwo  ')).toBe('one two');
    expect(previewOf('')).toBeNull();
    expect(previewOf(undefined)).toBeNull();
  });
});

describe('phase 1 title', () => {
  it('drops attachment markers, takes the first line and 50 code points', () => {
    expect(titleFromText('[attachment: a.png]\nFix the build\nmore')).toBe('Fix the build');
    expect(titleFromText('<file name="x">body</file>Hello <attachment-preview id=1>p</attachment-preview>world')).toBe('Hello world');
    expect(titleFromText('y'.repeat(50))).toBe('y'.repeat(50));
    expect(titleFromText('y'.repeat(51))).toBe(`${'y'.repeat(50)}…`);
    expect(titleFromText('🎉'.repeat(51))).toBe(`${'🎉'.repeat(50)}…`);
  });

  it('cleans a model answer: quotes, Title: prefix, 80 code points', () => {
    expect(cleanModelTitle('"Planning a Trip"')).toBe('Planning a Trip');
    expect(cleanModelTitle('Title: Debugging Rust lifetimes')).toBe('Debugging Rust lifetimes');
    expect(codePointLength(cleanModelTitle('é'.repeat(100)))).toBe(80);
  });
});
