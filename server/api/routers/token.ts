import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { TOKEN_SCOPES } from '@/lib/auth/index';
import { getAuthStore, getEventHub, getUserStore } from '@/server/runtime';
import { audited } from '@/server/audit/audit-runtime';
import { cookieOnlyProcedure, createTRPCRouter } from '../trpc';
import { projectIdInput, tokenIdInput, tokenNameInput } from '../schemas';

/** Personal API tokens. Cookie only: a token cannot mint or see other tokens. */
export const tokenRouter = createTRPCRouter({
  /** The only time the token itself is shown. `scopes` absent: every scope (DESIGN §17); `projectId`: only that project's sessions. */
  create: cookieOnlyProcedure
    .input(
      z
        .object({
          name: tokenNameInput,
          expiresAt: z.number().int().positive().nullish(),
          scopes: z.array(z.enum(TOKEN_SCOPES)).min(1, 'choose at least one scope').max(TOKEN_SCOPES.length).optional(),
          projectId: projectIdInput.nullish(),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      if (input.projectId) {
        const projects = await (await getUserStore(ctx.user.id)).listProjects();
        if (!projects.some((project) => project.id === input.projectId)) throw new TRPCError({ code: 'NOT_FOUND', message: `no such project: ${input.projectId}` });
      }
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
