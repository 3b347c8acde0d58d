import type { SessionStore, TrashRecord } from '@/lib/store/index';
import { isRetentionOff } from '@/lib/retention/index';
import { retentionSettings } from './retention-service';

export interface TrashRow {
  id: string;
  title: string;
  /** ms */
  trashedAt: number;
  /** ms; null while the user's deletion is off: the sweep purges nothing then */
  purgeAt: number | null;
}

/** The Trash page's rows: the store's records in the API's milliseconds, with whether the purge will happen. */
export function trashRows(userId: string, store: SessionStore): TrashRow[] {
  const { policy } = retentionSettings(userId).effective;
  const purging = !isRetentionOff(policy) && policy.deleteArchivedAfterDays !== undefined;
  return store.trash.list().map((record: TrashRecord) => ({
    id: record.id,
    title: record.title,
    trashedAt: Math.round(record.trashedAt * 1000),
    purgeAt: purging ? Math.round(record.purgeAt * 1000) : null,
  }));
}
