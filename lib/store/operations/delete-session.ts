import { rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../errors.js';
import { assertSessionId } from '../ids.js';
import { readMeta } from '../repo/session-files.js';
import { saveLocations } from '../registry/locations.js';
import { repoDirOf, type StoreContext } from '../store-context.js';
import { recoveryDir } from '../recovery/paths.js';

/**
 * delete_session: the repo (only when its meta.json names this id), the registry entry, the
 * location and the per-turn recovery files.
 */
export function deleteSession(ctx: StoreContext, sessionId: string): Promise<{ id: string }> {
  assertSessionId(sessionId);
  return ctx.locks.run(sessionId, async () => {
    const entry = ctx.registry.get(sessionId);
    if (!entry) throw new NotFoundError(`unknown session: ${sessionId}`);
    const release = ctx.writer.hold(sessionId);
    try {
      await removeSessionFilesAsync(ctx, sessionId);
      ctx.cache.delete(sessionId);
      ctx.registry.delete(sessionId);
    } finally {
      release();
    }
    await ctx.writer.writeNow();
    ctx.turns.delete(sessionId);
    await ctx.projects.forgetSession(sessionId);
    ctx.events.emit('session_deleted', { id: sessionId });
    return { id: sessionId };
  });
}

/** Delete's: the directory trees go in the thread pool, so a bulk delete never stalls the server. */
async function removeSessionFilesAsync(ctx: StoreContext, sessionId: string): Promise<void> {
  const dir = repoDirOf(ctx, sessionId);
  if (readMeta(dir)?.id === sessionId) {
    // meta.json first: a crash part-way leaves a directory that is no longer a session.
    await rm(join(dir, 'meta.json'), { force: true });
    await rm(dir, { recursive: true, force: true });
  }
  if (ctx.locations.delete(sessionId)) saveLocations(ctx);
  await rm(recoveryDir(ctx.sessionsDir, sessionId), { recursive: true, force: true });
}

/** The empty-shell sweep's (start-up). */
export function removeSessionFiles(ctx: StoreContext, sessionId: string): void {
  const dir = repoDirOf(ctx, sessionId);
  if (readMeta(dir)?.id === sessionId) rmSync(dir, { recursive: true, force: true });
  if (ctx.locations.delete(sessionId)) saveLocations(ctx);
  rmSync(recoveryDir(ctx.sessionsDir, sessionId), { recursive: true, force: true });
}
