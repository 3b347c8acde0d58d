import { readFileSync } from 'node:fs';

export type Clock = () => number;

/**
 * The wall clock, or, when `testClockFile` is given (OPENPROGRAM_TEST_CLOCK_FILE, set only by
 * the end-to-end tests), the wall clock plus the milliseconds that file holds, read at each
 * call: a test moves the server's time forward past an expiry without waiting for it.
 */
export function shareClock(testClockFile: string | undefined): Clock {
  if (!testClockFile) return Date.now;
  return () => {
    let offset = 0;
    try {
      const value = Number(readFileSync(testClockFile, 'utf8').trim());
      if (Number.isFinite(value)) offset = value;
    } catch {
      // no file yet: no offset
    }
    return Date.now() + offset;
  };
}
