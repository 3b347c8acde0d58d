import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { ConflictError, NotFoundError, PreconditionError } from '../errors.js';
import { assertSessionId } from '../ids.js';
import { recoveryDir } from '../recovery/paths.js';
import { readMeta } from '../repo/session-files.js';
import { repoDirOf, saveLocations } from '../session/locations.js';
import type { StoreContext } from '../session/store-context.js';
import { forkOf } from '../session/session-workdir.js';
import { removeForkWorktree } from '../projects/index.js';
import { DAY_SECONDS, readTrashRecord, TRASH_KEEP_DAYS, TRASH_RECORD_FILE, TRASHED_RECOVERY_DIR, TRASHED_REPO_DIR, trashEntryDir, type TrashRecord } from './trash-record.js';

async function moveIfThere(from: string, to: string): Promise<void> {
  if (existsSync(from)) await rename(from, to);
}

/**
 * A live session into `users/<id>/trash/<sid>/`: its record first, then its repository and
 * recovery files renamed (nothing copied, nothing deleted), then its registry entry, location
 * and project binding. Out of the list and, through session_deleted, out of the search index.
 * The id is journaled meanwhile, so a crash after the rename leaves a registry that start-up
 * reads again from the files.
 */
export function moveToTrash(ctx: StoreContext, sessionId: string): Promise<TrashRecord> {
  assertSessionId(sessionId);
  return ctx.locks.run(sessionId, async () => {
    const entry = ctx.registry.get(sessionId);
    if (!entry) throw new NotFoundError(`unknown session: ${sessionId}`);
    if (ctx.turns.has(sessionId)) throw new PreconditionError(`session ${sessionId} has a turn running: it goes to the trash once it ends`);
    const repoDir = repoDirOf(ctx, sessionId);
    if (readMeta(repoDir)?.id !== sessionId) throw new NotFoundError(`session ${sessionId} has no repository to move`);
    const target = trashEntryDir(ctx.stateDir, sessionId);
    if (readTrashRecord(ctx.stateDir, sessionId)) throw new ConflictError(`a session ${sessionId} is in the trash already: restore or delete it first`);
    // A folder without a record is what a crash left before anything was moved into it.
    await rm(target, { recursive: true, force: true });
    await mkdir(target, { recursive: true, mode: 0o700 });
    const trashedAt = ctx.now();
    const record: TrashRecord = {
      id: sessionId,
      title: entry.title,
      projectId: entry.project_id,
      repoDir,
      located: ctx.locations.has(sessionId),
      trashedAt,
      purgeAt: trashedAt + TRASH_KEEP_DAYS * DAY_SECONDS,
    };
    atomicWriteFileSync(join(target, TRASH_RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`);
    const release = ctx.writer.hold(sessionId);
    try {
      await rename(repoDir, join(target, TRASHED_REPO_DIR));
      await moveIfThere(recoveryDir(ctx.sessionsDir, sessionId), join(target, TRASHED_RECOVERY_DIR));
      ctx.cache.delete(sessionId);
      ctx.registry.delete(sessionId);
      if (ctx.locations.delete(sessionId)) saveLocations(ctx);
    } finally {
      release();
    }
    await ctx.writer.writeNow();
    await ctx.projects.forgetSession(sessionId);
    ctx.events.emit('session_deleted', { id: sessionId });
    return record;
  });
}

/** A trashed session removed for good (the sweep past its purge date, or "Delete now"): its fork's worktree too, as delete does. */
export function purgeTrashed(ctx: StoreContext, sessionId: string): Promise<{ id: string }> {
  assertSessionId(sessionId);
  return ctx.locks.run(sessionId, async () => {
    const dir = trashEntryDir(ctx.stateDir, sessionId);
    if (!readTrashRecord(ctx.stateDir, sessionId)) throw new NotFoundError(`no session ${sessionId} in the trash`);
    const repo = join(dir, TRASHED_REPO_DIR);
    const meta = readMeta(repo);
    const fork = meta ? forkOf(meta) : null;
    if (fork?.worktree && fork.projectFolder) await removeForkWorktree(fork.projectFolder, fork.worktree, ctx.allowedRoots).catch(() => undefined);
    // The repository first, the record last: a crash part-way still lists it, and purging again finishes.
    await rm(repo, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
    return { id: sessionId };
  });
}
