import { z } from 'zod';
import { bookmarksOf } from '@/lib/store/index';
import { createTRPCRouter, sessionProcedure, storeProcedure } from '../trpc';
import { nodeIdInput, sessionIdInput } from '../schemas';

/**
 * Bookmarks (DESIGN §16): messages the caller marked, kept in their own users/<id>/bookmarks.json;
 * bookmark_changed tells their other tabs.
 */
export const bookmarkRouter = createTRPCRouter({
  /** `[{sessionId, messageId, role, snippet, createdAt, title, preview, channel, gone}]`, newest first; of one session when named. */
  list: storeProcedure
    .input(z.object({ sessionId: sessionIdInput.optional() }).strict().optional())
    .query(({ ctx, input }) => bookmarksOf(ctx.store).list(input?.sessionId)),

  /** A message of one of the caller's sessions; the same one again changes nothing. NOT_FOUND for an unknown message. */
  add: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, messageId: nodeIdInput }).strict())
    .mutation(({ ctx, input }) => bookmarksOf(ctx.store).add(ctx.sessionId, input.messageId)),

  /** `{removed}`: false when there was no such bookmark (another tab removed it, or its session is gone). */
  remove: storeProcedure
    .input(z.object({ sessionId: sessionIdInput, messageId: nodeIdInput }).strict())
    .mutation(({ ctx, input }) => bookmarksOf(ctx.store).remove(input.sessionId, input.messageId)),
});
