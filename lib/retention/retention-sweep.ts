import { DAY_SECONDS, type SessionRow, type SessionStore } from '../store/index.js';
import { readArchivedSince, writeArchivedSince } from './retention-files.js';
import { isRetentionOff, type RetentionPolicy } from './retention-policy.js';

/** What the sweep needs of a user's store: its public surface only. */
export type RetentionStore = Pick<SessionStore, 'stateDir' | 'listSessions' | 'setArchived' | 'trash'>;

export interface SweepClock {
  /** seconds: the moment the limits are measured from (an admin's "as of" date, a test's clock) */
  now: number;
  /** seconds: what purging is measured against; the real clock, so an "as of" date in the future never deletes early */
  purgeNow: number;
}

export interface SweepResult {
  archived: string[];
  trashed: string[];
  purged: string[];
}

const PAGE = 200;

function allRows(store: RetentionStore): SessionRow[] {
  const rows: SessionRow[] = [];
  let cursor: string | null = null;
  do {
    const page = store.listSessions({ scope: 'all', limit: PAGE, cursor });
    rows.push(...page.rows);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

/** Pinned sessions are the user's "keep this", and a running one is being written: retention leaves both alone. */
function retentionMayTouch(row: SessionRow): boolean {
  return !row.pinned && row.status !== 'running';
}

/**
 * One pass of retention over one user's sessions (DESIGN §17). Off: nothing happens, not even a
 * purge. On: sessions with no activity (`updatedAt`) for archiveAfterDays are archived; sessions
 * archived for deleteArchivedAfterDays (counted from when a sweep first saw them archived, so
 * turning retention on never trashes an old archive at once) move to the trash; trashed sessions
 * past their purge date are removed, only while deletion is on.
 */
export async function sweepRetention(store: RetentionStore, policy: RetentionPolicy, clock: SweepClock): Promise<SweepResult> {
  const result: SweepResult = { archived: [], trashed: [], purged: [] };
  if (isRetentionOff(policy)) return result;
  const { archiveAfterDays, deleteArchivedAfterDays } = policy;
  const since = readArchivedSince(store.stateDir);
  const nextSince: Record<string, number> = {};
  for (const row of allRows(store)) {
    if (!retentionMayTouch(row)) continue;
    if (!row.archived) {
      // the API's rows speak milliseconds
      if (archiveAfterDays !== undefined && row.updatedAt <= (clock.now - archiveAfterDays * DAY_SECONDS) * 1000) {
        await store.setArchived(row.id, true);
        result.archived.push(row.id);
        nextSince[row.id] = clock.now;
      }
      continue;
    }
    const archivedAt = since[row.id] ?? clock.now;
    if (deleteArchivedAfterDays !== undefined && archivedAt <= clock.now - deleteArchivedAfterDays * DAY_SECONDS) {
      await store.trash.moveToTrash(row.id);
      result.trashed.push(row.id);
    } else {
      nextSince[row.id] = archivedAt;
    }
  }
  writeArchivedSince(store.stateDir, nextSince);
  if (deleteArchivedAfterDays !== undefined) result.purged = await store.trash.purgeExpired(clock.purgeNow);
  return result;
}
