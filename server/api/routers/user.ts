import { z } from 'zod';
import { getAuthStore } from '@/server/runtime';
import { cookieOnlyProcedure, createTRPCRouter, protectedProcedure } from '../trpc';
import { passwordInput } from '../schemas';

export const userRouter = createTRPCRouter({
  /** Who the caller is, and how it authenticated (tokens may ask too). */
  me: protectedProcedure.query(({ ctx }) => ({
    id: ctx.user.id,
    email: ctx.user.email,
    admin: ctx.user.admin,
    via: ctx.via,
  })),

  /** Cookie only: a leaked token must not be able to take over the account. */
  changePassword: cookieOnlyProcedure
    .input(z.object({ current: z.string().min(1).max(2048), next: passwordInput }).strict())
    .mutation(async ({ ctx, input }) => {
      await getAuthStore().users.changePassword(ctx.user.id, input.current, input.next);
      return { ok: true as const };
    }),
});
