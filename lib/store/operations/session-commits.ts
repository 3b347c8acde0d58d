import { listCommits, type CommitPage } from '../session/commit-page.js';
import type { StoreContext } from '../session/store-context.js';

/** A session's newest turn commits for provenance: none (not an error) for a session that is gone or unreadable. */
export async function sessionCommits(ctx: StoreContext, sessionId: string, limit = 50): Promise<CommitPage['commits']> {
  if (!ctx.registry.has(sessionId)) return [];
  return (await listCommits(ctx, sessionId, { limit }).catch(() => ({ commits: [] }))).commits;
}
