import { z } from 'zod';
import { createTRPCRouter, sessionProcedure } from '../trpc';
import { commitIdInput, cursorInput, limitInput, sessionIdInput } from '../schemas';

/** A session's turn commits (its Session-Git history), newest first. */
export const timelineRouter = createTRPCRouter({
  /** `{commits: [{sha, message, createdAt, turn, nodeIds, projectCommit}], nextCursor}` */
  list: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, limit: limitInput.optional(), cursor: cursorInput.nullish() }).strict())
    .query(({ ctx, input }) => ctx.store.listCommits(ctx.sessionId, { limit: input.limit, cursor: input.cursor })),

  /** `{files: [{path, status, patch, truncated}]}` against the commit's parent. */
  diff: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, sha: commitIdInput }).strict())
    .query(({ ctx, input }) => ctx.store.commitDiff(ctx.sessionId, input.sha)),

  /** The branch as it was at that commit: `{headId, messages}` (messages as message.branch gives them). */
  at: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, sha: commitIdInput }).strict())
    .query(({ ctx, input }) => ctx.store.branchAt(ctx.sessionId, input.sha)),
});
