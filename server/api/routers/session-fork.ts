import { z } from 'zod';
import { sessionProcedure } from '../trpc';
import { nodeIdInput, pathInput, sessionIdInput } from '../schemas';

/**
 * "Fork from here" (DESIGN §14): `{id, turn | nodeId, code?: 'worktree' | 'branch', worktree?}` →
 * `{session, fork: {of, turn, projectCommit, branch, worktree, projectFolder}}`. A new session
 * holding the conversation up to that turn (or message) and, in a project, a branch at that
 * turn's project commit in a worktree (default `<folder>.forks/<fork id>`) or only the branch.
 * A worktree inside the project or outside the allowed roots is refused, and nothing is made.
 */
export const forkProcedure = sessionProcedure
  .input(
    z
      .object({
        id: sessionIdInput,
        turn: z.number().int().min(1).optional(),
        nodeId: nodeIdInput.optional(),
        code: z.enum(['worktree', 'branch']).optional(),
        worktree: pathInput.nullish(),
      })
      .strict()
      .refine((input) => (input.turn === undefined) !== (input.nodeId === undefined), 'give either turn or nodeId'),
  )
  .mutation(({ ctx, input: { id: _id, ...input } }) => ctx.store.forkAtTurn(ctx.sessionId, input));
