import { TRPCError } from '@trpc/server';
import { assembleReply } from '@/lib/proxy/assemble';
import { bodyToResend } from '@/lib/proxy/kept-request';
import { NotFoundError, PreconditionError, type SessionStore } from '@/lib/store/index';
import type { ForwardResult } from './forward';
import { KIND_OF_WIRE } from './replay-offer';
import { keptExchangeOf, resendThrough, sendableUpstream, type KeptExchange } from './upstream-retry';

/**
 * Replay on another model (issue 35 item 4, DESIGN §14): the request the proxy kept for a reply,
 * sent again with only its model changed (and, if asked, through another of the user's upstreams
 * of the same kind), the answer recorded as a sibling of that reply with `metadata.replay = {of,
 * model}`. It goes the way Retry goes (upstream-retry.ts); the proxy never runs tools, so the
 * answer's tool calls are recorded, not run. An upstream that refuses gets nothing recorded: its
 * status and message are the error.
 */

export interface ReplayTarget {
  /** the user's upstream to send through; the recorded one when left out */
  upstream?: string;
  /** the model to ask; the recorded one when left out */
  model?: string;
}

export interface Replayed {
  sessionId: string;
  /** the reply replayed */
  of: string;
  /** the message both hang from */
  parentId: string | null;
  /** the answer, a sibling of `of` */
  replyId: string;
  model: string;
  /** the upstream it went through; null: the web chat's model server (replay-chat.ts) */
  upstream: string | null;
}

/** The upstream's own words for a refusal: `error.message` of either provider's JSON, else the start of the body. */
export function upstreamMessage(result: ForwardResult): string {
  const text = result.bytes.toString('utf8');
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof json.error === 'string' ? json.error : typeof json.error?.message === 'string' ? json.error.message : json.message;
    if (typeof message === 'string' && message.trim() !== '') return message.trim();
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 500) || 'no message';
}

/** The reply to replay and the request the proxy kept for it; NOT_FOUND / PRECONDITION_FAILED when there is none. */
export async function replayableReply(store: SessionStore, sessionId: string, nodeId: string): Promise<{ node: { parentId: string | null }; exchange: KeptExchange }> {
  const [node] = await store.getNodesById(sessionId, [nodeId]);
  if (!node || node.role !== 'assistant') throw new NotFoundError(`no reply ${nodeId} in this session`);
  const exchange = await keptExchangeOf(store, sessionId, nodeId);
  if (!exchange) throw new PreconditionError('this reply has no kept request to replay: only the final reply of a turn the recording proxy saw (not too large, no base64 media) keeps one');
  return { node, exchange };
}

export async function replayThroughUpstream(userId: string, store: SessionStore, sessionId: string, nodeId: string, target: ReplayTarget): Promise<Replayed> {
  const { node, exchange } = await replayableReply(store, sessionId, nodeId);
  const name = target.upstream ?? exchange.upstream;
  const model = target.model ?? exchange.model;
  const through = sendableUpstream(userId, name);
  if (!through) throw new PreconditionError(`the ${name} upstream has no key the server may send: set one in Settings → Connect an agent`);
  if (through.upstream.kind !== KIND_OF_WIRE[exchange.wire]) {
    throw new PreconditionError(`the ${name} upstream speaks ${through.upstream.kind}'s API; this request was made for ${KIND_OF_WIRE[exchange.wire]}'s`);
  }
  // Only the model changes: the rest is the request as the agent sent it.
  const body = { ...bodyToResend(exchange.kept, exchange.system), model };
  // A refusal, an answer that broke off or a 200 ending in an error event: nothing is recorded.
  const failure = (result: ForwardResult): string | null =>
    result.status >= 400
      ? `the ${name} upstream answered ${result.status}: ${upstreamMessage(result)}`
      : result.outcome !== 'complete'
        ? `the ${name} upstream's answer broke off (${result.outcome})`
        : assembleReply(exchange.wire, result.contentType, result.bytes).error;
  let failed: string | null = null;
  const { result, recorded } = await resendThrough(userId, store, sessionId, { wire: exchange.wire, name, ...through, body, replay: { of: nodeId, model }, record: (sent) => (failed = failure(sent)) === null });
  if (failed) throw new TRPCError({ code: 'BAD_GATEWAY', message: `${failed}; nothing was recorded` });
  if (!recorded?.replyId) throw new TRPCError({ code: 'BAD_GATEWAY', message: `the ${name} upstream's answer could not be read as a reply (status ${result.status})` });
  return { sessionId, of: nodeId, parentId: node.parentId, replyId: recorded.replyId, model, upstream: name };
}
