import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConflictError, NotFoundError, PreconditionError } from '../errors.js';
import { assertSessionId, DEFAULT_PROJECT_ID } from '../ids.js';
import { recoveryDir } from '../recovery/paths.js';
import { readMeta } from '../repo/session-files.js';
import { toRow } from '../registry/row.js';
import { repoDirOf, saveLocations } from '../session/locations.js';
import { entryFromDir } from '../session/rebuild.js';
import type { StoreContext } from '../session/store-context.js';
import type { SessionRow } from '../types.js';
import { readTrashRecord, TRASHED_RECOVERY_DIR, TRASHED_REPO_DIR, trashEntryDir } from './trash-record.js';

/**
 * A trashed session given back whole: its repository (every branch, message, attachment and
 * note is in it) renamed back to where it was, its registry entry read from its files, its
 * location and project binding again, then session_created, which the change feed turns into
 * the search index reading it again.
 */
export function restoreFromTrash(ctx: StoreContext, sessionId: string): Promise<SessionRow> {
  assertSessionId(sessionId);
  return ctx.locks.run(sessionId, async () => {
    const record = readTrashRecord(ctx.stateDir, sessionId);
    if (!record) throw new NotFoundError(`no session ${sessionId} in the trash`);
    if (ctx.registry.has(sessionId) && readMeta(repoDirOf(ctx, sessionId))?.id === sessionId) {
      throw new ConflictError(`a live session ${sessionId} exists: the trashed one cannot take its place`);
    }
    if (record.projectId !== DEFAULT_PROJECT_ID && !ctx.projects.has(record.projectId)) {
      throw new PreconditionError(`session ${sessionId}: its project is no longer registered; add the project's folder again, then restore`);
    }
    if (existsSync(record.repoDir)) throw new ConflictError(`session ${sessionId}: something is at its old place already (${record.repoDir})`);
    const from = trashEntryDir(ctx.stateDir, sessionId);
    const release = ctx.writer.hold(sessionId);
    let row: SessionRow;
    try {
      await mkdir(dirname(record.repoDir), { recursive: true, mode: 0o700 });
      await rename(join(from, TRASHED_REPO_DIR), record.repoDir);
      const recovery = recoveryDir(ctx.sessionsDir, sessionId);
      if (existsSync(join(from, TRASHED_RECOVERY_DIR)) && !existsSync(recovery)) {
        await mkdir(dirname(recovery), { recursive: true, mode: 0o700 });
        await rename(join(from, TRASHED_RECOVERY_DIR), recovery);
      }
      if (record.located) {
        ctx.locations.set(sessionId, record.repoDir);
        saveLocations(ctx);
      }
      const entry = entryFromDir(record.repoDir, sessionId);
      if (!entry) throw new PreconditionError(`session ${sessionId}: its restored meta.json cannot be read`);
      ctx.cache.delete(sessionId);
      ctx.registry.set(entry);
      row = toRow(ctx, entry);
    } finally {
      release();
    }
    await ctx.writer.writeNow();
    if (record.projectId !== DEFAULT_PROJECT_ID) await ctx.projects.addSession(record.projectId, sessionId);
    await rm(from, { recursive: true, force: true });
    ctx.events.emit('session_created', row);
    return row;
  });
}
