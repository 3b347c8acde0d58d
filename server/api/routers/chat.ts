import { z } from 'zod';
import { MAX_SYSTEM_PROMPT_CHARS, PreconditionError } from '@/lib/store/index';
import { getChatDispatcher } from '@/server/chat/runtime';
import { getModelService } from '@/server/runtime';
import { retryThroughUpstream, upstreamsWithKey } from '@/server/proxy/upstream-retry';
import { createTRPCRouter, protectedProcedure, sessionProcedure, storeProcedure } from '../trpc';
import { nodeIdInput, projectIdInput, sessionIdInput } from '../schemas';

const MAX_MESSAGE_CHARS = 100_000;
const contentInput = z
  .string()
  .refine((value) => value.trim() !== '', 'must not be empty')
  .refine((value) => [...value].length <= MAX_MESSAGE_CHARS, `must be at most ${MAX_MESSAGE_CHARS} characters`);
const attachmentIdInput = z.string().min(1).max(255);
export const modelIdInput = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200)
  .refine((value) => !/[\u0000-\u001f\u007f]/.test(value), 'must not contain control characters');

/** A chat may only pick what the server offers (the configured model or one its server lists). */
async function assertOffered(model: string): Promise<void> {
  const { models } = await getModelService().chatChoices();
  if (!models.includes(model)) {
    throw new PreconditionError(models.length > 0 ? `model ${model} is not offered here (offered: ${models.join(', ')})` : 'no model is configured');
  }
}

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
          model: modelIdInput.optional(),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input }) => {
      if (input.model !== undefined) await assertOffered(input.model);
      return getChatDispatcher().send(ctx.user.id, ctx.store, input);
    }),

  /**
   * A new reply beside an assistant message. A recorded agent's reply whose request the proxy
   * kept is asked again through the same upstream (`via: 'upstream'`, answered once recorded);
   * any other is branch.retry, then the web chat's model (`via: 'web chat'`, streamed).
   */
  retry: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput, assistantId: nodeIdInput }).strict())
    .mutation(async ({ ctx, input }) => {
      const throughUpstream = await retryThroughUpstream(ctx.user.id, ctx.store, ctx.sessionId, input.assistantId);
      if (throughUpstream) return { sessionId: ctx.sessionId, parentId: throughUpstream.parentId, via: 'upstream' as const, replyId: throughUpstream.replyId };
      return { ...(await getChatDispatcher().retry(ctx.user.id, ctx.store, ctx.sessionId, input.assistantId)), via: 'web chat' as const, replyId: null };
    }),

  /** Answers again after a failed or stopped turn, from the head (the turn status's Retry). */
  resume: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput }).strict())
    .mutation(({ ctx }) => getChatDispatcher().resume(ctx.user.id, ctx.store, ctx.sessionId)),

  /**
   * Stop: ends the running turn, the chat's (its model call aborted) or an agent's that never
   * finalised (a turn/interrupted note, a session commit); either ends `cancelled`.
   * `cancelled: false` when nothing was running.
   */
  cancel: sessionProcedure
    .input(z.object({ sessionId: sessionIdInput }).strict())
    .mutation(({ ctx }) => getChatDispatcher().cancel(ctx.user.id, ctx.store, ctx.sessionId)),

  /** Whether a turn runs now, the last failure of this process (for a tab that opens late), and the model the web chat answers with here. */
  state: sessionProcedure.input(z.object({ sessionId: sessionIdInput }).strict()).query(async ({ ctx }) => {
    const chat = getChatDispatcher();
    const picked = (await ctx.store.getChatSettings(ctx.sessionId)).model;
    return {
      running: chat.isRunning(ctx.user.id, ctx.sessionId),
      lastError: chat.lastError(ctx.user.id, ctx.sessionId),
      /** the reply streaming now and its text so far; chat_delta's `offset` continues it */
      streaming: chat.streaming(ctx.user.id, ctx.sessionId),
      /** the model a Retry, an Edit or a message here is answered with (the chat's pick, else the configured one; null: none), so an agent's session can say so */
      webChatModel: picked ?? (await getModelService().status()).model,
      /** the user's upstreams a recorded reply can be retried through now (a key to send): "Retry with <model> through your <upstream> upstream" */
      agentUpstreams: upstreamsWithKey(ctx.user.id),
    };
  }),

  /** What a chat may run on: `{defaultModel, models}` (the configured model first, then the others its server lists). */
  models: protectedProcedure.meta({ project: 'none' }).query(() => getModelService().chatChoices()),

  /** The chat's model pick (null: the default) and system prompt, from its context/chat.json. */
  settings: sessionProcedure.input(z.object({ sessionId: sessionIdInput }).strict()).query(({ ctx }) => ctx.store.getChatSettings(ctx.sessionId)),

  /**
   * Given fields replace the stored ones (null clears); from the next turn on. A model must be one
   * chat.models offers; the change is noted in the session (a chat/settings record) and committed with the next turn.
   */
  setSettings: sessionProcedure
    .input(
      z
        .object({
          sessionId: sessionIdInput,
          model: modelIdInput.nullable().optional(),
          systemPrompt: z
            .string()
            .refine((value) => [...value].length <= MAX_SYSTEM_PROMPT_CHARS, `must be at most ${MAX_SYSTEM_PROMPT_CHARS} characters`)
            .nullable()
            .optional(),
        })
        .strict(),
    )
    .mutation(async ({ ctx, input: { sessionId: _id, ...patch } }) => {
      if (patch.model) await assertOffered(patch.model);
      return ctx.store.setChatSettings(ctx.sessionId, patch);
    }),

  /** The model in use, or exactly why there is none (Settings, the composer). */
  modelStatus: protectedProcedure.meta({ project: 'none' }).query(() => getModelService().status()),
});
