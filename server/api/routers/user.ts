import { z } from 'zod';
import { applyUserPrefs, getAuthStore } from '@/server/runtime';
import { cookieReader, reissueSessionCookie } from '@/server/auth/session-cookie';
import { cookieOnlyProcedure, createTRPCRouter, protectedProcedure } from '../trpc';
import { passwordInput } from '../schemas';

export const userRouter = createTRPCRouter({
  /** Who the caller is, and how it authenticated (tokens may ask too). */
  me: protectedProcedure.meta({ project: 'none' }).query(({ ctx }) => ({
    id: ctx.user.id,
    email: ctx.user.email,
    admin: ctx.user.admin,
    via: ctx.via,
  })),

  /** The caller's settings: `{redactSecrets, titleAgentSessions}`. */
  prefs: protectedProcedure.meta({ project: 'none' }).query(({ ctx }) => getAuthStore().users.prefsOf(ctx.user.id)),

  /**
   * Cookie only: an agent's token must not be able to turn redaction off for what it writes next,
   * nor send its prompts to the title model.
   * Applies to the open store at once.
   */
  setPrefs: cookieOnlyProcedure
    .input(z.object({ redactSecrets: z.boolean().optional(), titleAgentSessions: z.boolean().optional() }).strict())
    .mutation(async ({ ctx, input }) => {
      const prefs = await getAuthStore().users.setPrefs(ctx.user.id, input);
      await applyUserPrefs(ctx.user.id);
      return prefs;
    }),

  /**
   * Cookie only: a leaked token must not be able to take over the account. Ends every other
   * sign-in of the user (the session version moves on); this one gets a re-issued cookie.
   * Wrong current passwords count toward the sign-in limit (429 past it).
   */
  changePassword: cookieOnlyProcedure
    .input(z.object({ current: z.string().min(1).max(2048), next: passwordInput }).strict())
    .mutation(async ({ ctx, input }) => {
      const auth = getAuthStore();
      const oldVersion = ctx.user.sessionVersion;
      const changed = await auth.changePassword(ctx.user.id, input.current, input.next, ctx.ip);
      const cookie = await reissueSessionCookie(cookieReader(ctx.headers.get('cookie')), auth.secret, {
        id: ctx.user.id,
        oldVersion,
        newVersion: changed.sessionVersion,
      });
      if (cookie) ctx.responseCookies.push(cookie);
      return { ok: true as const };
    }),
});
