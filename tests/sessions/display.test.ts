import { describe, expect, it } from 'vitest';
import { dayGroupOf } from '@/components/sessions/day-groups';
import { displayTitle, UNTITLED } from '@/components/sessions/display-title';

describe('displayTitle', () => {
  it('shows the title, else the preview for placeholder titles, else a name', () => {
    expect(displayTitle({ title: 'Plan', preview: 'p', channel: null })).toBe('Plan');
    expect(displayTitle({ title: 'New conversation', preview: 'hello there', channel: null })).toBe('hello there');
    expect(displayTitle({ title: 'Untitled', preview: null, channel: null })).toBe('Untitled');
    expect(displayTitle({ title: '', preview: '', channel: null })).toBe(UNTITLED);
    expect(displayTitle({ title: 'Hi', preview: null, channel: 'telegram' })).toBe('[telegram] Hi');
  });
});

describe('dayGroupOf', () => {
  const now = Date.UTC(2026, 11, 1, 8, 0); // 08:00 UTC, 17:00 in Tokyo, 00:00 in Los Angeles
  it('counts calendar days in the viewer zone', () => {
    expect(dayGroupOf(Date.UTC(2026, 11, 1, 0, 30), now, 'UTC')).toBe('Today');
    expect(dayGroupOf(Date.UTC(2026, 10, 30, 23, 0), now, 'UTC')).toBe('Yesterday');
    expect(dayGroupOf(Date.UTC(2026, 10, 30, 23, 0), now, 'Asia/Tokyo')).toBe('Today');
    expect(dayGroupOf(Date.UTC(2026, 10, 25), now, 'UTC')).toBe('Previous 7 days');
    expect(dayGroupOf(Date.UTC(2026, 10, 20), now, 'UTC')).toBe('Older');
    expect(dayGroupOf(now, now, 'Not/AZone')).toBe('Today');
  });
});
