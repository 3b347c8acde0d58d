import { z } from 'zod';
import { getChatDispatcher } from '@/server/chat/runtime';
import { getModelService } from '@/server/runtime';
import { createTRPCRouter, protectedProcedure, sessionProcedure, storeProcedure } from '../trpc';
import { nodeIdInput, projectIdInput, sessionIdInput } from '../schemas';

const MAX_MESSAGE_CHARS = 100_000;
const contentInput = z
  .string()
  .refine((value) => value.trim() !== '', 'must not be empty')
  .refine((value) => [...value].length <= MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`);
const attachmentIdInput = z.string().min(1).max(255);

/** Chat (DESIGN §5): a message in, the reply as chat_* events; one running turn per session. */
export const chatRouter = createTRPCRouter({
  /**
   * Without a sessionId the session is created with this first message (never an empty one).
   * `parentId` (ours): edit and resend, a new user message after that one, on a new branch.
   */
  send: storeProcedure
    .input(
      z
        .object({
          sessionId: sessionIdInput.optional(),
          projectId: projectIdInput.optional(),
          content: contentInput,
          attachmentIds: z.array(attachmentIdInput).max(20).optional(),
          parentId: nodeIdInput.nullish(),
        })
        .strict(),
    )
    .mutation(({ ctx, input }) => getChatDispatcher().send(ctx.user.id, ctx.store, input)),

  /** A new reply beside an assistant message (branch.retry, then the model). */
  retry: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, assistantId: nodeIdInput }).strict())
    .mutation(({ ctx, input }) => getChatDispatcher().retry(ctx.user.id, ctx.store, ctx.sessionId, input.assistantId)),

  /** Answers again after a failed or stopped turn, from the head (the turn status's Retry). */
  resume: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput }).strict())
    .mutation(({ ctx }) => getChatDispatcher().resume(ctx.user.id, ctx.store, ctx.sessionId)),

  /** Stops the model call; the turn ends `cancelled`. `cancelled: false` when nothing was running. */
  cancel: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput }).strict())
    .mutation(({ ctx }) => getChatDispatcher().cancel(ctx.user.id, ctx.sessionId)),

  /** Whether a turn runs now, and the last failure of this process, for a tab that opens late. */
  state: sessionProcedure.input(z.object({ sessionId: sessionIdInput }).strict()).query(({ ctx }) => {
    const chat = getChatDispatcher();
    return {
      running: chat.isRunning(ctx.user.id, ctx.sessionId),
      lastError: chat.lastError(ctx.user.id, ctx.sessionId),
      /** the reply streaming now and its text so far; chat_delta's `offset` continues it */
      streaming: chat.streaming(ctx.user.id, ctx.sessionId),
    };
  }),

  /** The model in use, or exactly why there is none (Settings, the composer). */
  modelStatus: protectedProcedure.query(() => getModelService().status()),
});
