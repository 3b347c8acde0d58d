import { describe, expect, it } from 'vitest';
import { wordDiff, WORD_DIFF_MAX_CHARS } from './word-diff.js';

describe('wordDiff: word-level differences from a to b', () => {
  it('marks the replaced word as removed then added, keeping the shared words and spaces', () => {
    expect(wordDiff('The sky is blue today.', 'The sky is green today.')).toEqual([
      { text: 'The sky is ', change: 'same' },
      { text: 'blue', change: 'removed' },
      { text: 'green', change: 'added' },
      { text: ' today.', change: 'same' },
    ]);
  });

  it('the runs put back together give each side exactly', () => {
    const a = 'one two  three\nfour';
    const b = 'one 2  three\nfour five';
    const changes = wordDiff(a, b);
    expect(changes.filter((c) => c.change !== 'added').map((c) => c.text).join('')).toBe(a);
    expect(changes.filter((c) => c.change !== 'removed').map((c) => c.text).join('')).toBe(b);
    expect(changes.some((c) => c.change === 'added' && c.text.includes('five'))).toBe(true);
  });

  it('equal texts are one shared run; empty ones none', () => {
    expect(wordDiff('same', 'same')).toEqual([{ text: 'same', change: 'same' }]);
    expect(wordDiff('', '')).toEqual([]);
    expect(wordDiff('', 'new')).toEqual([{ text: 'new', change: 'added' }]);
  });

  it('past the size bound the two texts are one removed and one added run', () => {
    const big = 'x '.repeat(WORD_DIFF_MAX_CHARS);
    expect(wordDiff(big, 'y')).toEqual([
      { text: big, change: 'removed' },
      { text: 'y', change: 'added' },
    ]);
  });

  it('two wholly unlike long texts stop at the edit bound instead of running on', () => {
    const a = Array.from({ length: 5_000 }, (_, i) => `a${i}`).join(' ');
    const b = Array.from({ length: 5_000 }, (_, i) => `b${i}`).join(' ');
    expect(wordDiff(a, b)).toEqual([
      { text: a, change: 'removed' },
      { text: b, change: 'added' },
    ]);
  });
});
