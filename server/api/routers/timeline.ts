import { z } from 'zod';
import { createTRPCRouter, sessionProcedure } from '../trpc';
import { commitIdInput, cursorInput, limitInput, sessionIdInput } from '../schemas';
import { cachedBranchGraph } from '../../graph/cache';

/** A session's turn commits (its Session-Git history), newest first. */
export const timelineRouter = createTRPCRouter({
  /**
   * `{commits: [{sha, message, createdAt, turn, nodeIds, projectCommit, projectCommitSkipped,
   * nodes, projectCommitInfo, retryForks, fileEdits}], nextCursor, projectId, prompts}`; `session init` is no turn.
   * A node lists the tools it called (`toolCalls`); `projectCommitSkipped` also names the quiet
   * reasons (`no_project`, `no_begin`, `nothing_to_commit`); `prompts` counts the branch's user messages.
   * An imported turn lists `linkedCommits` (`[{sha, info}]`): the project commits its agent made during it.
   */
  list: sessionProcedure
    .input(
      z
        .object({
          sessionId: sessionIdInput,
          limit: limitInput.optional(),
          cursor: cursorInput.nullish(),
          // Sent by TanStack Query's infinite queries on a refetch (through tRPC); paging is forward only.
          direction: z.enum(['forward', 'backward']).optional(),
        })
        .strict(),
    )
    .query(({ ctx, input }) => ctx.store.listTurns(ctx.sessionId, { limit: input.limit, cursor: input.cursor })),

  /** `{files: [{path, status, patch, truncated}]}` against the commit's parent. */
  diff: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, sha: commitIdInput }).strict())
    .query(({ ctx, input }) => ctx.store.commitDiff(ctx.sessionId, input.sha)),

  /**
   * The session as that commit holds it, read from git: `{sha, turn, createdAt, message,
   * projectCommit, headId, messages, previous, next}` (messages as message.branch gives them).
   */
  at: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, sha: commitIdInput }).strict())
    .query(({ ctx, input }) => ctx.store.branchAt(ctx.sessionId, input.sha)),

  /** The conversation's branches laid out in lanes (long runs collapsed; server/graph/layout.ts): `{width, height, nodes, edges, messageCount}`. */
  graph: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput }).strict())
    .query(async ({ ctx }) => cachedBranchGraph(ctx.store.stateDir, ctx.sessionId, await ctx.store.conversationDag(ctx.sessionId))),
});
