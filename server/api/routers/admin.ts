import { z } from 'zod';
import { AuthError } from '@/lib/auth/index';
import { applyProjectRoots, getAuthStore, getInstanceKeys, getProjectRoots } from '@/server/runtime';
import { audited } from '@/server/audit/audit-runtime';
import { adminProcedure, createTRPCRouter } from '../trpc';
import { emailInput, passwordInput, pathInput, userIdInput } from '../schemas';

export const adminRouter = createTRPCRouter({
  createUser: adminProcedure
    .input(z.object({ email: emailInput, password: passwordInput, admin: z.boolean().optional() }).strict())
    .mutation(({ ctx, input }) => audited(ctx, 'admin.createUser', (user) => user.id, () => getAuthStore().users.create(input))),

  listUsers: adminProcedure.query(() => getAuthStore().users.list()),

  /** Disabling bumps the session version: the user's open sign-ins end at once. */
  setDisabled: adminProcedure
    .input(z.object({ userId: userIdInput, disabled: z.boolean() }).strict())
    .mutation(({ ctx, input }) => audited(ctx, 'admin.setDisabled', input.userId, () => getAuthStore().users.setDisabled(input.userId, input.disabled))),

  /** Also ends the user's open sign-ins. */
  resetPassword: adminProcedure
    .input(z.object({ userId: userIdInput, password: passwordInput }).strict())
    .mutation(({ ctx, input }) => audited(ctx, 'admin.resetPassword', input.userId, () => getAuthStore().users.resetPassword(input.userId, input.password))),

  /** Every extra project root (DESIGN §2), with the user's email; `from`: the Admin page or OPENPROGRAM_ALLOWED_ROOTS. */
  projectRoots: adminProcedure.query(async () => {
    const users = getAuthStore().users;
    return (await getProjectRoots()).list().map((root) => ({ ...root, email: users.get(root.userId)?.email ?? null }));
  }),

  /** An existing folder outside the data directory that no other user's root overlaps; the user's open store takes it at once. */
  addProjectRoot: adminProcedure
    .input(z.object({ userId: userIdInput, path: pathInput }).strict())
    .mutation(({ ctx, input }) =>
      audited(ctx, 'admin.addProjectRoot', `${input.userId} ${input.path}`, async () => {
        if (!getAuthStore().users.get(input.userId)) throw new AuthError('NOT_FOUND', 'no such user');
        const root = await (await getProjectRoots()).add(input.userId, input.path);
        await applyProjectRoots(input.userId);
        return root;
      }),
    ),

  /** Projects already in it stay registered; their folder is refused until it is inside a root again. */
  removeProjectRoot: adminProcedure
    .input(z.object({ userId: userIdInput, path: pathInput }).strict())
    .mutation(({ ctx, input }) =>
      audited(ctx, 'admin.removeProjectRoot', `${input.userId} ${input.path}`, async () => {
        const result = (await getProjectRoots()).remove(input.userId, input.path);
        await applyProjectRoots(input.userId);
        return result;
      }),
    ),

  /** The instance-wide provider keys only as set or not, and the ids of the users who may use them. */
  instanceKeys: adminProcedure.query(() => getInstanceKeys().view()),

  /** Sets (or, with an empty key, removes) the instance key of a kind; never shown back. */
  setInstanceKey: adminProcedure
    .input(
      z
        .object({
          kind: z.enum(['anthropic', 'openai'], { message: 'kind must be anthropic or openai' }),
          key: z
            .string()
            .max(4_000, 'key: the provider key must be at most 4,000 characters')
            .refine((value) => !/\s/.test(value.trim()), 'key: the provider key must be one word, without spaces'),
        })
        .strict(),
    )
    .mutation(({ ctx, input }) => audited(ctx, 'admin.setInstanceKey', input.kind, () => getInstanceKeys().setKey(input.kind, input.key))),

  /** The per-user switch "may use the instance key" (off by default); the user's own key always wins. */
  setInstanceKeyUser: adminProcedure
    .input(z.object({ userId: userIdInput, allowed: z.boolean() }).strict())
    .mutation(({ ctx, input }) =>
      audited(ctx, 'admin.setInstanceKeyUser', input.userId, () => {
        if (!getAuthStore().users.get(input.userId)) throw new AuthError('NOT_FOUND', 'no such user');
        return getInstanceKeys().setAllowed(input.userId, input.allowed);
      }),
    ),

  setSignup: adminProcedure.input(z.object({ open: z.boolean() }).strict()).mutation(async ({ ctx, input }) => {
    await audited(ctx, 'admin.setSignup', input.open ? 'open' : 'closed', () => getAuthStore().users.setSignupOpen(input.open));
    return { open: input.open };
  }),
});
