'use client';

import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { isValidTimeZone, TIME_ZONE_COOKIE } from './day-groups';

interface Clock {
  timeZone: string;
  now: number;
}

const ClockContext = createContext<Clock>({ timeZone: 'UTC', now: 0 });

/**
 * The viewer's zone and the time the day groups are counted from. The server renders with the zone
 * this browser reported last time (a cookie; UTC on a first visit) and the server's clock, so the
 * first paint matches the hydration; then the browser's own zone and clock take over, and the
 * groups move on at midnight.
 */
export function ClockProvider({ initialTimeZone, initialNow, children }: { initialTimeZone: string; initialNow: number; children: ReactNode }) {
  const [clock, setClock] = useState<Clock>({ timeZone: initialTimeZone, now: initialNow });
  useEffect(() => {
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const zone = timeZone && isValidTimeZone(timeZone) ? timeZone : 'UTC';
    if (zone !== initialTimeZone) document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(zone)}; path=/; max-age=31536000; samesite=lax`;
    setClock({ timeZone: zone, now: Date.now() });
    const timer = setInterval(() => setClock((current) => ({ ...current, now: Date.now() })), 60_000);
    return () => clearInterval(timer);
  }, [initialTimeZone]);
  return <ClockContext.Provider value={clock}>{children}</ClockContext.Provider>;
}

export function useClock(): Clock {
  return useContext(ClockContext);
}
