import { z } from 'zod';
import { getAuthStore, getEventHub } from '@/server/runtime';
import { audited } from '@/server/audit/audit-runtime';
import { cookieOnlyProcedure, createTRPCRouter } from '../trpc';
import { tokenIdInput, tokenNameInput } from '../schemas';

/** Personal API tokens. Cookie only: a token cannot mint or see other tokens. */
export const tokenRouter = createTRPCRouter({
  /** The only time the token itself is shown. */
  create: cookieOnlyProcedure
    .input(z.object({ name: tokenNameInput, expiresAt: z.number().int().positive().nullish() }).strict())
    .mutation(async ({ ctx, input }) => {
      const { id, token } = await audited(ctx, 'token.create', (made) => made.id, () => getAuthStore().tokens.create(ctx.user.id, input));
      return { id, token };
    }),

  list: cookieOnlyProcedure.query(({ ctx }) => getAuthStore().tokens.list(ctx.user.id)),

  revoke: cookieOnlyProcedure.input(z.object({ id: tokenIdInput }).strict()).mutation(async ({ ctx, input }) => {
    await audited(ctx, 'token.revoke', input.id, () => getAuthStore().tokens.revoke(ctx.user.id, input.id));
    // Streams opened with that token end now, not at their next write.
    getEventHub().revalidate(ctx.user.id);
    return { id: input.id };
  }),
});
