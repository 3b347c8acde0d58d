import { NotFoundError } from '../errors.js';
import { assertSessionId } from '../ids.js';
import { removeSessionFiles } from '../session/remove-files.js';
import type { StoreContext } from '../session/store-context.js';
import { removeForkCode } from '../session/session-workdir.js';

/**
 * delete_session: the session's files (session/remove-files.ts), then its registry entry.
 */
export function deleteSession(ctx: StoreContext, sessionId: string): Promise<{ id: string }> {
  assertSessionId(sessionId);
  return ctx.locks.run(sessionId, async () => {
    const entry = ctx.registry.get(sessionId);
    if (!entry) throw new NotFoundError(`unknown session: ${sessionId}`);
    await removeForkCode(ctx, sessionId);
    const release = ctx.writer.hold(sessionId);
    try {
      await removeSessionFiles(ctx, sessionId);
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
