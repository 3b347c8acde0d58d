import { z } from 'zod';
import { FINAL_STATUSES } from '@/lib/store/index';
import { createTRPCRouter, sessionProcedure } from '../trpc';
import { labelInput, pathInput, sessionIdInput } from '../schemas';

const turnNumber = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** Turns: one session commit each, plus the project's agent commit when the tree allows it. */
export const turnRouter = createTRPCRouter({
  /** Status running and the project's dirty paths noted; a second begin while running is CONFLICT. */
  begin: sessionProcedure.input(z.object({ sessionId: sessionIdInput }).strict()).mutation(({ ctx }) => ctx.store.beginTurn(ctx.sessionId)),

  /**
   * Commits the session (even without a begin); with a begin, also the project (DESIGN §4.8).
   * `writtenPaths` (project-relative) are the agent's known writes; omitted means unknown.
   */
  finalize: sessionProcedure
    .input(
      z
        .object({
          sessionId: sessionIdInput,
          commitMessage: z.string().trim().min(1, 'must not be empty').max(10_000).optional(),
          status: z.enum(FINAL_STATUSES).optional(),
          writtenPaths: z.array(pathInput).max(10_000).optional(),
          model: labelInput().optional(),
        })
        .strict(),
    )
    .mutation(({ ctx, input: { sessionId: _id, ...rest } }) => ctx.store.finalizeTurn(ctx.sessionId, rest)),

  /** Puts the project files of a turn back, or refuses with the reason (PRECONDITION_FAILED). */
  undo: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, turn: turnNumber }).strict())
    .mutation(({ ctx, input }) => ctx.store.undoTurn(ctx.sessionId, input.turn)),

  redo: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, turn: turnNumber }).strict())
    .mutation(({ ctx, input }) => ctx.store.redoTurn(ctx.sessionId, input.turn)),
});
