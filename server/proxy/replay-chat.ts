import { TRPCError } from '@trpc/server';
import { chatRequestOf } from '@/lib/proxy/chat-request';
import { bodyToResend } from '@/lib/proxy/kept-request';
import { PreconditionError, type SessionStore } from '@/lib/store/index';
import { chatUsage } from '@/server/chat/chat-usage';
import { getModelService } from '@/server/runtime';
import { replayableReply, type Replayed } from './replay';

/**
 * Replay on the web chat's model (issue 35 item 4, DESIGN §14): the request the proxy kept for a
 * reply, carried over into Chat Completions (lib/proxy/chat-request.ts: the agent's system prompt,
 * messages, tool calls and results, tool schemas), sent once to the chat model server; the answer
 * a sibling of the reply with `metadata.replay = {of, model}`. Tools are offered as the agent
 * offered them and the calls in the answer are recorded, never run. A refusal records nothing.
 */
export async function replayThroughChatModel(store: SessionStore, sessionId: string, nodeId: string, requested: string | undefined): Promise<Replayed> {
  const { exchange } = await replayableReply(store, sessionId, nodeId);
  const service = getModelService();
  if (requested !== undefined) {
    const { models } = await service.chatChoices();
    if (!models.includes(requested)) throw new PreconditionError(`the chat model server does not offer ${requested}${models.length > 0 ? `: it offers ${models.join(', ')}` : ''}`);
  }
  const resolved = await service.chatModel(requested ?? null);
  if (!resolved.model) throw new PreconditionError(`replay with the chat model needs one: ${resolved.reason}`);
  const model = resolved.model;
  const { messages, tools } = chatRequestOf(exchange.wire, bodyToResend(exchange.kept, exchange.system));
  let reply;
  try {
    reply = await model.streamChat({ messages, tools }, () => undefined);
  } catch (error) {
    throw new TRPCError({ code: 'BAD_GATEWAY', message: `the chat model ${model.model} failed: ${(error as Error).message}; nothing was recorded` });
  }
  const replay = { of: nodeId, model: model.model };
  const { parentId } = await store.retry(sessionId, nodeId);
  await store.beginTurn(sessionId, { selfTimed: true });
  let replyId: string;
  try {
    const answer = await store.appendMessage(sessionId, {
      role: 'assistant',
      content: reply.text,
      name: model.model,
      metadata: { model: model.model, replay, usage: chatUsage(model.model, reply), ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}) },
    });
    replyId = answer.id;
  } finally {
    await store.finalizeTurn(sessionId, { model: model.model, keepTitle: true });
  }
  return { sessionId, of: nodeId, parentId, replyId, model: model.model, upstream: null };
}
