import { sweepEveryUser } from '@/server/retention/retention-service';

/** Hourly: a limit counted in days is met within the hour; the first pass waits a minute so start-up stays quick. */
const SWEEP_EVERY_MS = 60 * 60 * 1000;
const FIRST_SWEEP_AFTER_MS = 60 * 1000;

/**
 * The retention sweep (DESIGN §17) on a timer in the server process: it only renames folders and
 * writes small files, so it needs no worker thread. Users with retention off are not even opened.
 */
export function startRetentionSchedule(): void {
  const sweep = () =>
    void sweepEveryUser()
      .then((summary) => {
        if (summary.archived + summary.trashed + summary.purged > 0) console.log(`[retention] archived ${summary.archived}, moved ${summary.trashed} to the trash, purged ${summary.purged}`);
      })
      .catch((error: unknown) => console.error('[retention] the sweep failed:', error));
  setTimeout(() => {
    sweep();
    setInterval(sweep, SWEEP_EVERY_MS).unref();
  }, FIRST_SWEEP_AFTER_MS).unref();
}
