import { describe, expect, it } from 'vitest';
import { relativeTimeText } from './relative-time';

describe('a row time', () => {
  const now = Date.UTC(2026, 11, 7, 12, 0, 0);
  it('says how long ago, in the largest unit that fits', () => {
    expect(relativeTimeText(now - 20_000, now)).toBe('just now');
    expect(relativeTimeText(now - 5 * 60_000, now)).toBe('5 min. ago');
    expect(relativeTimeText(now - 3 * 3600_000, now)).toBe('3 hr. ago');
    expect(relativeTimeText(now - 24 * 3600_000, now)).toBe('yesterday');
    expect(relativeTimeText(now - 10 * 24 * 3600_000, now)).toBe('last wk.');
  });
});
