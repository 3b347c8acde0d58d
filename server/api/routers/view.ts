import { z } from 'zod';
import { MAX_VIEW_NAME_CHARS, viewsOf } from '@/lib/store/index';
import { createTRPCRouter, storeProcedure } from '../trpc';
import { labelInput, projectIdInput, tagFilterInput } from '../schemas';

const viewNameInput = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((value) => [...value].length <= MAX_VIEW_NAME_CHARS, `must be at most ${MAX_VIEW_NAME_CHARS} characters`);

/** The Chats page's filter, as session.list takes it. */
const viewFilterInput = z
  .object({
    scope: z.enum(['active', 'archived', 'all']).optional(),
    q: labelInput(500).optional(),
    agent: labelInput().optional(),
    projectId: projectIdInput.optional(),
    ...tagFilterInput,
  })
  .strict();

/**
 * Saved views (DESIGN §16): a Chats filter under a name (unique per user, whatever its case), kept in
 * users/<id>/views.json, listed with how many sessions it matches now; view_changed tells the other tabs.
 */
export const viewRouter = createTRPCRouter({
  /** `[{name, filter, createdAt, sessions}]` by name. */
  list: storeProcedure.query(({ ctx }) => viewsOf(ctx.store).list()),

  /** CONFLICT when the name is taken. */
  save: storeProcedure
    .input(z.object({ name: viewNameInput, filter: viewFilterInput }).strict())
    .mutation(({ ctx, input }) => viewsOf(ctx.store).save(input.name, input.filter)),

  /** NOT_FOUND when there is no view of that name. */
  delete: storeProcedure
    .input(z.object({ name: viewNameInput }).strict())
    .mutation(({ ctx, input }) => viewsOf(ctx.store).delete(input.name)),
});
