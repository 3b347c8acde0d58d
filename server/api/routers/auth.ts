import { z } from 'zod';
import { oidcConfig } from '@/server/auth/oidc-provider';
import { getAuthStore } from '@/server/runtime';
import { createTRPCRouter, publicProcedure } from '../trpc';
import { emailInput, passwordInput } from '../schemas';

/** What the sign-in page needs before anyone is signed in: first-run setup and self sign-up. */
export const authRouter = createTRPCRouter({
  status: publicProcedure.query(() => {
    const auth = getAuthStore();
    // singleSignOn: the sign-in page's "Sign in with <name>" button, when OPENPROGRAM_OIDC_* are set.
    const oidc = oidcConfig();
    return { needsSetup: auth.needsSetup, signupOpen: auth.users.signupOpen, singleSignOn: oidc ? { name: oidc.name } : null };
  }),

  /** First run: the setup code printed in the server log makes this account the admin. */
  setup: publicProcedure
    .input(z.object({ code: z.string().trim().min(1).max(64), email: emailInput, password: passwordInput }).strict())
    .mutation(async ({ ctx, input }) => {
      const admin = await getAuthStore().createFirstAdmin({ ...input, ip: ctx.ip });
      return { email: admin.email };
    }),

  signup: publicProcedure
    .input(z.object({ email: emailInput, password: passwordInput }).strict())
    .mutation(async ({ input }) => {
      const user = await getAuthStore().signUp(input);
      return { email: user.email };
    }),
});
