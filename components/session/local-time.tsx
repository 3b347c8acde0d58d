'use client';

import { useClock } from '@/components/sessions/clock-provider';

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One format in one language everywhere: the server's render and the browser's hydration agree. */
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    } catch {
      formatter = formatterFor('UTC');
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/**
 * A time in the viewer's zone, the same on every page (messages, timeline, project history). The
 * zone is the clock's: the server renders with the one this browser reported (UTC on a first
 * visit), so the first paint hydrates as it is, then the browser's own zone takes over.
 */
export function LocalTime({ ms, className }: { ms: number; className?: string }) {
  const { timeZone } = useClock();
  return (
    <time dateTime={new Date(ms).toISOString()} title={timeZone} className={className}>
      {formatterFor(timeZone).format(new Date(ms))}
    </time>
  );
}
