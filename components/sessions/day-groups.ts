/** The sidebar's recency groups (DESIGN §7), in the viewer's local time. */
export const DAY_GROUPS = ['Today', 'Yesterday', 'Previous 7 days', 'Older'] as const;
export type DayGroup = (typeof DAY_GROUPS)[number];

/** The zone this browser reported, so the server's first paint groups rows as the browser will. */
export const TIME_ZONE_COOKIE = 'em_tz';

const DAY_MS = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      // An unknown zone (a hand-edited cookie): UTC, as for a first visit.
      formatter = formatterFor('UTC');
    }
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** A calendar day number in that zone, so that differences count midnights, not 24-hour spans. */
function dayNumber(ms: number, timeZone: string): number {
  const parts = formatterFor(timeZone).formatToParts(new Date(ms));
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value);
  return Date.UTC(value('year'), value('month') - 1, value('day')) / DAY_MS;
}

export function dayGroupOf(updatedAt: number, now: number, timeZone: string): DayGroup {
  const days = dayNumber(now, timeZone) - dayNumber(updatedAt, timeZone);
  if (days <= 0) return 'Today';
  if (days === 1) return 'Yesterday';
  if (days <= 7) return 'Previous 7 days';
  return 'Older';
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return true;
  } catch {
    return false;
  }
}
