import type { StoreContext } from '../session/store-context.js';
import type { SessionRow } from '../types.js';
import { moveToTrash, purgeTrashed } from './move-to-trash.js';
import { restoreFromTrash } from './restore-from-trash.js';
import { listTrashRecords, type TrashRecord } from './trash-record.js';

/**
 * One user's trash (DESIGN §17, `users/<id>/trash/`): where retention moves sessions instead of
 * deleting them, kept TRASH_KEEP_DAYS, then purged by the sweep. `store.trash` of a SessionStore.
 */
export class SessionTrash {
  constructor(private readonly ctx: StoreContext) {}

  list(): TrashRecord[] {
    return listTrashRecords(this.ctx.stateDir);
  }
  moveToTrash(sessionId: string): Promise<TrashRecord> {
    return moveToTrash(this.ctx, sessionId);
  }
  restore(sessionId: string): Promise<SessionRow> {
    return restoreFromTrash(this.ctx, sessionId);
  }
  purge(sessionId: string): Promise<{ id: string }> {
    return purgeTrashed(this.ctx, sessionId);
  }
  /** Every trashed session whose purge date is at or before `now` (seconds), removed; their ids. */
  async purgeExpired(now: number): Promise<string[]> {
    const purged: string[] = [];
    for (const record of this.list()) {
      if (record.purgeAt > now) continue;
      await this.purge(record.id);
      purged.push(record.id);
    }
    return purged;
  }
}
