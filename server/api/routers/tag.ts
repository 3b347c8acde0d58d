import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { editTags, InvalidInputError, runBulk, TAG_COLOURS } from '@/lib/store/index';
import { createTRPCRouter, sessionProcedure, storeProcedure } from '../trpc';
import { sessionIdInput, tagListInput, tagNameInput } from '../schemas';

/** A user's tags (DESIGN §16): their colours and counts, and tags added or taken off sessions. */
export const tagRouter = createTRPCRouter({
  /** `[{name, colour, sessions}]`, by name; sessions counts those not archived. */
  list: storeProcedure.query(({ ctx }) => ctx.store.listTags()),

  setColour: storeProcedure
    .input(z.object({ name: tagNameInput, colour: z.enum(TAG_COLOURS) }).strict())
    .mutation(({ ctx, input }) => ctx.store.setTagColour(input.name, input.colour)),

  /** One session's tags changed by what to add and what to take off; the row afterwards. */
  edit: sessionProcedure
    .input(z.object({ id: sessionIdInput, add: tagListInput.default([]), remove: tagListInput.default([]) }).strict())
    .mutation(({ ctx, input }) => ctx.store.editTags(ctx.sessionId, input.add, input.remove)),

  /** Many sessions at once (the Chats page's selection); ids not in the caller's store come back in `missing`. */
  bulk: storeProcedure
    .input(z.object({ ids: z.array(sessionIdInput).min(1).max(1000), add: tagListInput.default([]), remove: tagListInput.default([]) }).strict())
    .mutation(({ ctx, input }) => {
      // Every session's new tags are checked before any is written: one past the limit refuses the whole edit, half done never.
      for (const id of input.ids) {
        const row = ctx.store.getRow(id);
        try {
          if (row) editTags(row.tags, input.add, input.remove);
        } catch (error) {
          if (!(error instanceof InvalidInputError)) throw error;
          throw new TRPCError({ code: 'BAD_REQUEST', message: `“${row!.title || row!.id}”: ${error.message}; no session was changed` });
        }
      }
      return runBulk(input.ids, async (id) => {
        if (!ctx.store.hasSession(id)) return false;
        try {
          await ctx.store.editTags(id, input.add, input.remove);
          return true;
        } catch (error) {
          if ((error as { code?: unknown }).code === 'NOT_FOUND') return false;
          throw error;
        }
      });
    }),
});
