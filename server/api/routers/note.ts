import { z } from 'zod';
import { MAX_NOTE_BYTES } from '@/lib/store/index';
import { renderNote } from '@/server/render/note-markdown';
import { createTRPCRouter, sessionProcedure } from '../trpc';
import { nodeIdInput, sessionIdInput } from '../schemas';

const noteText = z
  .string()
  .trim()
  .min(1, 'must not be empty (use note.delete)')
  .refine((text) => Buffer.byteLength(text, 'utf8') <= MAX_NOTE_BYTES, 'must be at most 64 KiB');

/**
 * Notes (DESIGN §16): Markdown on the session (no messageId) or on a message, kept as git notes on
 * the turn commits of the session's repository; note_changed tells the caller's other tabs.
 */
export const noteRouter = createTRPCRouter({
  /** `[{messageId, text, commit, rendered}]`: the session's own first (messageId null); `rendered` is the Markdown as a message's. */
  list: sessionProcedure
    .input(z.object({ id: sessionIdInput }).strict())
    .query(async ({ ctx }) => Promise.all((await ctx.store.listNotes(ctx.sessionId)).map(async (note) => ({ ...note, rendered: await renderNote(note.text, ctx.user.id) })))),

  set: sessionProcedure
    .input(z.object({ id: sessionIdInput, messageId: nodeIdInput.optional(), text: noteText }).strict())
    .mutation(({ ctx, input }) =>
      ctx.store.setNote(ctx.sessionId, input.messageId ? { kind: 'message', messageId: input.messageId } : { kind: 'session' }, input.text),
    ),

  /** NOT_FOUND when there is no such note. */
  delete: sessionProcedure
    .input(z.object({ id: sessionIdInput, messageId: nodeIdInput.optional() }).strict())
    .mutation(async ({ ctx, input }) => {
      await ctx.store.setNote(ctx.sessionId, input.messageId ? { kind: 'message', messageId: input.messageId } : { kind: 'session' }, null);
      return { deleted: true };
    }),
});
