import { z } from 'zod';
import { getAuthStore } from '@/server/runtime';
import { adminProcedure, createTRPCRouter } from '../trpc';
import { emailInput, passwordInput, userIdInput } from '../schemas';

export const adminRouter = createTRPCRouter({
  createUser: adminProcedure
    .input(z.object({ email: emailInput, password: passwordInput, admin: z.boolean().optional() }).strict())
    .mutation(({ input }) => getAuthStore().users.create(input)),

  listUsers: adminProcedure.query(() => getAuthStore().users.list()),

  /** Disabling bumps the session version: the user's open sign-ins end at once. */
  setDisabled: adminProcedure
    .input(z.object({ userId: userIdInput, disabled: z.boolean() }).strict())
    .mutation(({ input }) => getAuthStore().users.setDisabled(input.userId, input.disabled)),

  /** Also ends the user's open sign-ins. */
  resetPassword: adminProcedure
    .input(z.object({ userId: userIdInput, password: passwordInput }).strict())
    .mutation(({ input }) => getAuthStore().users.resetPassword(input.userId, input.password)),

  setSignup: adminProcedure.input(z.object({ open: z.boolean() }).strict()).mutation(({ input }) => {
    getAuthStore().users.setSignupOpen(input.open);
    return { open: input.open };
  }),
});
