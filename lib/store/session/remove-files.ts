import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readMeta } from '../repo/session-files.js';
import { recoveryDir } from '../recovery/paths.js';
import { saveLocations, repoDirOf } from './locations.js';
import { type StoreContext } from './store-context.js';

/**
 * A session's files: its repo (only when its meta.json names this id), its location and its
 * per-turn recovery files (delete, and start-up's sweep of empty shells). In the thread pool, so a
 * bulk delete never stalls the server.
 */
export async function removeSessionFiles(ctx: StoreContext, sessionId: string): Promise<void> {
  const dir = repoDirOf(ctx, sessionId);
  if (readMeta(dir)?.id === sessionId) {
    // meta.json first: a crash part-way leaves a directory that is no longer a session.
    await rm(join(dir, 'meta.json'), { force: true });
    await rm(dir, { recursive: true, force: true });
  }
  if (ctx.locations.delete(sessionId)) saveLocations(ctx);
  await rm(recoveryDir(ctx.sessionsDir, sessionId), { recursive: true, force: true });
}
