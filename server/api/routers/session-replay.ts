import { z } from 'zod';
import { UPSTREAM_NAME_PATTERN } from '@/lib/auth/index';
import { replayThroughUpstream } from '@/server/proxy/replay';
import { replayThroughChatModel } from '@/server/proxy/replay-chat';
import { sessionProcedure } from '../trpc';
import { nodeIdInput, sessionIdInput } from '../schemas';
import { modelIdInput } from './chat';

/**
 * "Replay with…" (DESIGN §14): `{sessionId, nodeId, upstream?, model?}` (at least one) → `{sessionId,
 * of, parentId, replyId, model, upstream}`. The request the proxy kept for that reply, sent again
 * with only the model changed (through the recorded upstream, or another of the user's of the same
 * kind); the answer a sibling of the reply with `metadata.replay = {of, model}`, its tool calls
 * recorded, never run. `via: "chat"` sends it to the web chat's model server instead, carried over
 * into Chat Completions (`model`: one it offers, else its default; `upstream` null in the answer).
 * No kept request, no key or no such chat model: PRECONDITION_FAILED; the upstream or model server
 * refusing: BAD_GATEWAY with its status and message; nothing is written either way.
 */
export const replayProcedure = sessionProcedure
  .input(
    z
      .object({
        sessionId: sessionIdInput,
        nodeId: nodeIdInput,
        upstream: z.string().regex(UPSTREAM_NAME_PATTERN, 'an upstream name is 1–32 lower-case letters, digits or dashes').optional(),
        model: modelIdInput.optional(),
        via: z.enum(['upstream', 'chat']).optional(),
      })
      .strict()
      .refine((input) => input.via !== 'chat' || input.upstream === undefined, 'the chat model is not reached through an upstream: leave upstream out')
      .refine((input) => input.via === 'chat' || input.upstream !== undefined || input.model !== undefined, 'give the upstream or the model to replay with'),
  )
  .mutation(({ ctx, input }) =>
    input.via === 'chat'
      ? replayThroughChatModel(ctx.store, ctx.sessionId, input.nodeId, input.model)
      : replayThroughUpstream(ctx.user.id, ctx.store, ctx.sessionId, input.nodeId, { upstream: input.upstream, model: input.model }),
  );
