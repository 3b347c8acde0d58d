import { z } from 'zod';
import { getUserStore } from '@/server/runtime';
import { trashRows } from '@/server/retention/trash-view';
import { cookieOnlyProcedure, createTRPCRouter, storeProcedure } from '../trpc';
import { sessionIdInput } from '../schemas';

const byId = z.object({ id: sessionIdInput }).strict();

/** DESIGN §17: the caller's trash (`users/<id>/trash/`), where retention moves sessions for 30 days. */
export const trashRouter = createTRPCRouter({
  list: storeProcedure.query(({ ctx }) => trashRows(ctx.user.id, ctx.store)),

  /** The session back whole, where it was: every branch, message, attachment, and its search hits. */
  restore: storeProcedure.input(byId).mutation(({ ctx, input }) => ctx.store.trash.restore(input.id)),

  /** Removed for good before its purge date. Cookie only: a token cannot delete what cannot be restored. */
  deleteNow: cookieOnlyProcedure.input(byId).mutation(async ({ ctx, input }) => (await getUserStore(ctx.user.id)).trash.purge(input.id)),
});
