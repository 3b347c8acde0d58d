import { ensureCommitState, headDepth } from '../session/commit-state.js';
import type { StoreContext } from '../session/store-context.js';
import { withSession } from '../session/session-access.js';

/**
 * The session's newest turn commit and its turn number, from the commit state the store keeps in
 * memory (git is asked once per open session, for the depth), or null when it has none but
 * `session init`. A live share link asks on every visit: `listCommits` forked `git log` each time.
 */
export function newestTurnCommit(ctx: StoreContext, sessionId: string): Promise<{ sha: string; turn: number } | null> {
  return withSession(ctx, sessionId, async (session) => {
    const state = await ensureCommitState(session);
    if (!state.head) return null;
    const turn = await headDepth(session);
    return turn > 0 ? { sha: state.head, turn } : null;
  });
}
