import { EventEmitter } from 'node:events';
import type http from 'node:http';
import type { Upstream, UpstreamView } from '@/lib/auth/index';
import { exchangeDeadlineMs } from '@/lib/proxy/limits';
import { bodyToResend, readKeptRequest, UPSTREAM_PATH, type KeptRequest } from '@/lib/proxy/kept-request';
import type { Wire } from '@/lib/proxy/types';
import { internalAllowed } from '@/lib/proxy/upstream-address';
import type { SessionStore } from '@/lib/store/index';
import { getInstanceKeys, getProxyUpstreams } from '@/server/runtime';
import { keyToSend } from './credentials';
import { forward, type ForwardResult } from './forward';
import { providerError } from './provider-errors';
import { recordExchangeNow, type RecordedSummary, type ReplayMark } from './recorder';

/**
 * Retry on an agent's recorded reply, answered by the agent's own model (issue 28 item 6): the
 * request the recording kept for that reply (kept-request.ts: its messages and tools, the system
 * prompt by hash) is sent again through the same upstream with the key the proxy would send (the
 * user's stored key, else the instance key the admin lets them use), and the answer is recorded
 * as any proxied exchange: the same history again, so a sibling of the reply, with its `retry-`
 * ref. Without a kept request or a key to send, the web chat answers instead (the caller's job).
 */

const WIRES: readonly Wire[] = ['anthropic', 'responses', 'chat'];

/** The names of the user's upstreams the server can send a request through now (a key it may send). */
export function upstreamsWithKey(userId: string): string[] {
  return getProxyUpstreams()
    .list(userId)
    .filter((view: UpstreamView) => sendableUpstream(userId, view.name) !== null)
    .map((view) => view.name);
}

/** The user-agent a retried exchange is recorded with, so the session keeps its agent. */
const AGENT_USER_AGENT: Record<string, string> = { 'claude-code': 'claude-code (entity-memory retry)', codex: 'codex (entity-memory retry)' };

/**
 * A stand-in for the agent's connection: forward() writes the answer here, and nobody reads it
 * but the recording (the bytes forward copies aside).
 */
class Discard extends EventEmitter {
  headersSent = false;
  writableFinished = false;
  writeHead(): this {
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {}
  write(): boolean {
    return true;
  }
  end(): this {
    this.writableFinished = true;
    return this;
  }
  destroy(): this {
    return this;
  }
}

export interface UpstreamRetry {
  sessionId: string;
  /** the message the new reply hangs from (the retried reply's parent) */
  parentId: string | null;
  /** the new reply, a sibling of the one retried; null when the upstream answered nothing to record */
  replyId: string | null;
  model: string;
  upstream: string;
  status: number;
}

/** What a reply's recording kept to ask for it again: its wire, the request, its system prompt and the upstream it went through. */
export interface KeptExchange {
  wire: Wire;
  kept: KeptRequest;
  system: string | null;
  /** the name of the upstream the agent's request went through */
  upstream: string;
  /** the model the agent asked for */
  model: string;
}

/** The reply's kept exchange; null when the recording kept no request for it (not proxied, a tool step, too large, base64 media). */
export async function keptExchangeOf(store: SessionStore, sessionId: string, assistantId: string): Promise<KeptExchange | null> {
  const { context, system } = await store.readReplyContext(sessionId, assistantId);
  const kept = readKeptRequest(context?.['request']);
  const wire = context?.['wire'] as Wire | undefined;
  const upstream = context?.['upstream'];
  if (!kept || !wire || !WIRES.includes(wire) || typeof upstream !== 'string') return null;
  return { wire, kept, system, upstream, model: typeof kept.body['model'] === 'string' ? kept.body['model'] : '' };
}

/** An upstream the server may send through now: the user's, with a key it may send. */
export function sendableUpstream(userId: string, name: string): { upstream: Upstream; key: string } | null {
  const upstream = getProxyUpstreams().resolve(userId, name);
  const sent = upstream ? keyToSend(userId, upstream, getInstanceKeys()) : null;
  return upstream && sent ? { upstream, key: sent.key } : null;
}

export interface Resend {
  wire: Wire;
  /** the upstream's name and what it resolved to */
  name: string;
  upstream: Upstream;
  key: string;
  body: Record<string, unknown>;
  /** a Replay's answer: recorded with `metadata.replay` (recorder.ts) */
  replay?: ReplayMark;
  /** whether to record what came back (a Replay records nothing when the upstream refused) */
  record?: (result: ForwardResult) => boolean;
}

/**
 * Send a kept request (as is, or with its model changed) through an upstream with the key the
 * proxy would send, and record the answer as the proxy records: this session named, the agent
 * kept, the key not among the headers passed on. Retry and Replay both go through here.
 */
export async function resendThrough(userId: string, store: SessionStore, sessionId: string, send: Resend): Promise<{ result: ForwardResult; recorded: RecordedSummary | null }> {
  const body = Buffer.from(JSON.stringify(send.body));
  const headers: http.IncomingHttpHeaders = { 'content-type': 'application/json' };
  if (send.upstream.kind === 'anthropic') {
    headers['anthropic-version'] = '2023-06-01';
    headers['x-api-key'] = send.key;
  } else headers['authorization'] = `Bearer ${send.key}`;
  const { upstream, wire } = send;
  const result = await new Promise<ForwardResult>((resolve) => {
    forward(
      { url: new URL(`${upstream.baseUrl}${UPSTREAM_PATH[wire]}`), method: 'POST', headers, replace: {}, remove: [], body, idleTimeoutMs: exchangeDeadlineMs(), deadlineMs: exchangeDeadlineMs(), publicOnly: !internalAllowed(upstream.baseUrl) },
      new Discard() as unknown as http.ServerResponse,
      (status, message) => providerError(upstream.kind, status, message),
      resolve,
    );
  });
  if (send.record && !send.record(result)) return { result, recorded: null };
  const agent = store.getRow(sessionId)?.agentId ?? '';
  const recorded = await recordExchangeNow({
    userId,
    wire,
    upstream: send.name,
    headers: { 'x-entity-memory-session': sessionId, ...(AGENT_USER_AGENT[agent] ? { 'user-agent': AGENT_USER_AGENT[agent] } : {}) },
    body,
    bodySent: result.requestSent,
    bodyBytes: body.length,
    status: result.status,
    contentType: result.contentType,
    bytes: result.bytes,
    totalBytes: result.totalBytes,
    outcome: result.outcome,
    endedAt: result.endedAt,
    startedAt: result.startedAt,
    firstByteAt: result.firstByteAt,
    ...(send.replay ? { replay: send.replay } : {}),
  });
  return { result, recorded };
}

/**
 * Send the reply's kept request again through its upstream and record the answer; null when the
 * reply has no kept request, or its upstream no key the server may send (the web chat answers then,
 * as `upstreamsWithKey` let the page say).
 */
export async function retryThroughUpstream(userId: string, store: SessionStore, sessionId: string, assistantId: string): Promise<UpstreamRetry | null> {
  const exchange = await keptExchangeOf(store, sessionId, assistantId);
  // No key the server may send (the agent kept its own, which passed through unstored): the web chat answers, as the page said.
  const through = exchange ? sendableUpstream(userId, exchange.upstream) : null;
  if (!exchange || !through) return null;
  const { result, recorded } = await resendThrough(userId, store, sessionId, { wire: exchange.wire, name: exchange.upstream, ...through, body: bodyToResend(exchange.kept, exchange.system) });
  const [retried] = await store.getNodesById(sessionId, [assistantId]);
  return { sessionId, parentId: retried?.parentId ?? null, replyId: recorded?.replyId ?? null, model: exchange.model, upstream: exchange.upstream, status: result.status };
}
