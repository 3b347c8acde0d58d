import { z } from 'zod';
import { compareBranches } from '@/lib/compare/index';
import { sessionProcedure } from '../trpc';
import { nodeIdInput, sessionIdInput } from '../schemas';

/**
 * "Compare" (DESIGN §14): `{sessionId, a, b}` (two message ids of the session) →
 * `{ancestor, rows: [{a, b, words}], project}`: the common message, the two branches' messages
 * after it aligned pairwise with word-level differences (a's text to b's), and the project changes
 * of each side's turns plus the diff between the trees they left (`state: 'none'` with the reason
 * when there are none). Either id not in the session is NOT_FOUND; the same id twice BAD_REQUEST.
 */
export const compareProcedure = sessionProcedure
  .input(
    z
      .object({ sessionId: sessionIdInput, a: nodeIdInput, b: nodeIdInput })
      .strict()
      .refine((input) => input.a !== input.b, { message: 'a and b are the same message: pick two branches', path: ['b'] }),
  )
  .query(async ({ ctx, input }) => compareBranches(await ctx.store.comparePaths(ctx.sessionId, input.a, input.b)));
