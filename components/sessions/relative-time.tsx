'use client';

import { useClock } from './clock-provider';

const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto', style: 'short' });
const UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600_000],
  ['month', 30 * 24 * 3600_000],
  ['week', 7 * 24 * 3600_000],
  ['day', 24 * 3600_000],
  ['hour', 3600_000],
  ['minute', 60_000],
];

/** "5 min. ago", "yesterday": the largest unit that fits; under a minute "just now". */
export function relativeTimeText(ms: number, now: number): string {
  const elapsed = now - ms;
  if (Math.abs(elapsed) < 60_000) return 'just now';
  for (const [unit, size] of UNITS) {
    if (Math.abs(elapsed) >= size) return format.format(-Math.trunc(elapsed / size), unit);
  }
  return 'just now';
}

/**
 * When a row was last written, from the clock the page shares (the server's at first paint, so
 * the hydration matches, then the browser's, moving on each minute); the exact time in its title.
 */
export function RelativeTime({ ms, className }: { ms: number; className?: string }) {
  const { now, timeZone } = useClock();
  const exact = new Date(ms);
  return (
    <time dateTime={exact.toISOString()} title={exact.toLocaleString('en-GB', { timeZone })} className={className}>
      {relativeTimeText(ms, now)}
    </time>
  );
}
