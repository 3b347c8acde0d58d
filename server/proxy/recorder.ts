import type { IncomingHttpHeaders } from 'node:http';
import { assembleReply } from '@/lib/proxy/assemble';
import { chainFingerprint, fingerprints } from '@/lib/proxy/fingerprint';
import { parseRequest } from '@/lib/proxy/request';
import { chooseSession, prefixSessionId, sourceOf, type Agent } from '@/lib/proxy/session-identity';
import type { AssembledReply, ExchangeOutcome, Media, ParsedRequest, Step, Wire } from '@/lib/proxy/types';
import type { ExchangeStep, SessionStore } from '@/lib/store/index';
import { getUserStore } from '@/server/runtime';

/** Base64 media larger than this is stored as an attachment, referenced from its node (DESIGN §12). */
export const INLINE_MEDIA_BYTES = 256 * 1024;

export interface FinishedExchange {
  userId: string;
  wire: Wire;
  upstream: string;
  headers: IncomingHttpHeaders;
  /** the request body as the client sent it; null when it was over the limit */
  body: Buffer | null;
  bodyBytes: number;
  status: number;
  contentType: string | null;
  bytes: Buffer;
  outcome: ExchangeOutcome;
  /** performance.now() at the upstream's last byte */
  endedAt: number;
}

export interface RecordedSummary {
  sessionId: string;
  replyId: string | null;
  turn: number;
  agent: Agent | null;
  outcome: ExchangeOutcome;
  status: number;
  /** ms from the upstream's last byte until the turn was committed */
  recordMs: number;
}

interface ProxyState {
  /** one recording at a time per session, in arrival order */
  chains: Map<string, Promise<unknown>>;
  /** Responses ids → where their reply was recorded, for previous_response_id */
  responses: Map<string, { sessionId: string; nodeId: string; fingerprint: string }>;
  listeners: Set<(summary: RecordedSummary & { userId: string }) => void>;
}

const KEY = Symbol.for('entity-memory.proxy-recorder');
const holder = globalThis as typeof globalThis & { [KEY]?: ProxyState };
function state(): ProxyState {
  return (holder[KEY] ??= { chains: new Map(), responses: new Map(), listeners: new Set() });
}

/** For the bench and tests: each committed recording, with how long it took. */
export function onRecorded(listener: (summary: RecordedSummary & { userId: string }) => void): () => void {
  state().listeners.add(listener);
  return () => state().listeners.delete(listener);
}

const header = (headers: IncomingHttpHeaders) => (name: string): string | null => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || null;
};

/**
 * Record one finished exchange, off the client's path (the caller does not wait). Errors are
 * logged without the request or any header: nothing a provider key could be in.
 */
export function recordInBackground(exchange: FinishedExchange): void {
  setImmediate(() => {
    recordExchangeNow(exchange).catch((error: unknown) => {
      console.error(`[proxy] recording a ${exchange.wire} exchange failed: ${(error as Error).message}`);
    });
  });
}

export async function recordExchangeNow(exchange: FinishedExchange): Promise<RecordedSummary | null> {
  const plan = planRecording(exchange);
  if (!plan) return null;
  const { chains } = state();
  const key = `${exchange.userId}/${plan.sessionId}`;
  const previous = chains.get(key) ?? Promise.resolve();
  const run = previous.catch(() => {}).then(() => commit(exchange, plan));
  chains.set(key, run);
  try {
    return await run;
  } finally {
    if (chains.get(key) === run) chains.delete(key);
  }
}

interface Plan {
  sessionId: string;
  agent: Agent | null;
  parsed: ParsedRequest | null;
  reply: AssembledReply | null;
  after: { nodeId: string; fingerprint: string } | null;
}

function planRecording(exchange: FinishedExchange): Plan | null {
  const get = header(exchange.headers);
  if (exchange.body === null) {
    // Over the limit: a metadata-only turn, in the session the headers name (nothing else is readable).
    const choice = chooseSession(get, parseRequest(exchange.wire, null));
    return choice.sessionId ? { sessionId: choice.sessionId, agent: choice.agent, parsed: null, reply: null, after: null } : null;
  }
  let json: unknown;
  try {
    json = JSON.parse(exchange.body.toString('utf8'));
  } catch {
    return null; // the upstream answered the bad body; there is no conversation to record
  }
  const parsed = parseRequest(exchange.wire, json);
  const choice = chooseSession(get, parsed);
  // Claude Code's side calls (quota check, titles, topic detection) offer no tools: not the conversation.
  if (choice.agent === 'claude-code' && parsed.tools.length === 0) return null;
  const after = parsed.previousResponseId ? (state().responses.get(`${exchange.userId}/${parsed.previousResponseId}`) ?? null) : null;
  let sessionId = choice.sessionId ?? (after ? after.sessionId : null);
  if (!sessionId) {
    const first = fingerprints(parsed.steps).find((fingerprint) => fingerprint !== null);
    if (!first) return null;
    sessionId = prefixSessionId(first);
  }
  const reply = exchange.outcome === 'upstream_unreachable' ? null : assembleReply(exchange.wire, exchange.contentType, exchange.bytes);
  return { sessionId, agent: choice.agent, parsed, reply, after: after ? { nodeId: after.nodeId, fingerprint: after.fingerprint } : null };
}

const turnStatus = (outcome: ExchangeOutcome): 'idle' | 'failed' | 'cancelled' => (outcome === 'complete' ? 'idle' : outcome === 'client_gone' ? 'cancelled' : 'failed');

async function commit(exchange: FinishedExchange, plan: Plan): Promise<RecordedSummary> {
  const store = await getUserStore(exchange.userId);
  const source = sourceOf(plan.agent, exchange.wire);
  const agentId = plan.agent ?? (exchange.wire === 'anthropic' ? 'anthropic' : 'openai');
  await store.createSession({ id: plan.sessionId, source, agentId });
  const proxyMeta = { wire: exchange.wire, upstream: exchange.upstream, status: exchange.status, outcome: exchange.outcome };

  let steps: ExchangeStep[];
  let reply: ExchangeStep | null = null;
  let replyFingerprint: string | null = null;
  if (!plan.parsed) {
    steps = [{ role: 'user', content: `[a request of ${exchange.bodyBytes} bytes, over the proxy's limit: not recorded]`, metadata: { proxy: proxyMeta } }];
  } else {
    const chain = fingerprints(plan.parsed.steps, plan.after?.fingerprint ?? '');
    steps = await Promise.all(plan.parsed.steps.map((step, index) => toExchangeStep(store, plan.sessionId, step, chain[index] ?? undefined)));
    const last = [...chain].reverse().find((fingerprint) => fingerprint !== null) ?? plan.after?.fingerprint ?? '';
    if (plan.reply) {
      const answer = plan.reply;
      const asStep: Step = { role: 'assistant', text: answer.text, thinking: answer.thinking, toolCalls: answer.toolCalls };
      replyFingerprint = chainFingerprint(last, asStep);
      const outcomeError = exchange.outcome === 'client_gone' ? 'the client went away before the end' : exchange.outcome === 'timeout' ? 'the upstream timed out or broke off' : null;
      // Nothing came at all: say why, not that the (empty) answer was unreadable.
      const error = exchange.bytes.length === 0 ? (outcomeError ?? answer.error) : (answer.error ?? outcomeError);
      reply = {
        role: 'assistant',
        fingerprint: replyFingerprint,
        content: answer.text,
        toolCalls: answer.toolCalls,
        metadata: {
          model: answer.model ?? plan.parsed.model ?? '',
          ...(answer.thinking.length > 0 ? { thinking: answer.thinking } : {}),
          ...(answer.usage ? { usage: answer.usage } : {}),
          ...(answer.stopReason ? { stop_reason: answer.stopReason } : {}),
          ...(answer.id ? { response_id: answer.id } : {}),
          ...(error ? { error } : {}),
          proxy: proxyMeta,
        },
      };
    }
  }
  const context = plan.parsed
    ? { wire: exchange.wire, model: plan.parsed.model, tools: plan.parsed.tools, stream: plan.parsed.stream, upstream: exchange.upstream, status: exchange.status, outcome: exchange.outcome, request_bytes: exchange.bodyBytes, response_bytes: exchange.bytes.length }
    : undefined;
  const result = await store.recordExchange(
    { sessionId: plan.sessionId, steps, after: plan.after?.nodeId ?? null, reply, system: plan.parsed?.system ?? null, context },
    { source, agentId, status: turnStatus(exchange.outcome), model: plan.parsed?.model ?? undefined },
  );
  const replyId = result.replyId;
  if (replyId && plan.reply?.id && exchange.wire === 'responses' && replyFingerprint) {
    const { responses } = state();
    responses.set(`${exchange.userId}/${plan.reply.id}`, { sessionId: plan.sessionId, nodeId: replyId, fingerprint: replyFingerprint });
    if (responses.size > 10_000) responses.delete(responses.keys().next().value!);
  }
  const summary: RecordedSummary = { sessionId: plan.sessionId, replyId, turn: result.turn, agent: plan.agent, outcome: exchange.outcome, status: exchange.status, recordMs: performance.now() - exchange.endedAt };
  for (const listener of state().listeners) listener({ ...summary, userId: exchange.userId });
  return summary;
}

async function toExchangeStep(store: SessionStore, sessionId: string, step: Step, fingerprint: string | undefined): Promise<ExchangeStep> {
  if (step.role === 'tool') return { role: 'tool', callId: step.callId, content: step.content, ...(step.isError ? { metadata: { is_error: true } } : {}) };
  if (step.role === 'assistant') {
    return { role: 'assistant', fingerprint, content: step.text, toolCalls: step.toolCalls, metadata: step.thinking.length > 0 ? { thinking: step.thinking } : {} };
  }
  const metadata: Record<string, unknown> = {};
  if (step.reminders.length > 0) metadata['system_reminders'] = step.reminders;
  if (step.media.length > 0) {
    const { inline, attachments } = await splitMedia(store, sessionId, step.media);
    if (inline.length > 0) metadata['media'] = inline;
    if (attachments.length > 0) metadata['attachments'] = attachments;
  }
  return { role: 'user', fingerprint, content: step.text, metadata };
}

/** Small media stays in the node; large base64 media becomes an attachment of the session. */
async function splitMedia(store: SessionStore, sessionId: string, media: Media[]): Promise<{ inline: Media[]; attachments: unknown[] }> {
  const inline: Media[] = [];
  const attachments: unknown[] = [];
  for (const [index, item] of media.entries()) {
    const bytes = item.data ? Math.floor((item.data.length * 3) / 4) : 0;
    if (!item.data || bytes <= INLINE_MEDIA_BYTES) {
      inline.push(item);
      continue;
    }
    const extension = item.mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin';
    const saved = await store.saveAttachment(sessionId, { name: `${item.kind}-${index + 1}.${extension}`, data: Buffer.from(item.data, 'base64'), mime: item.mime });
    attachments.push({ id: saved.id, name: saved.name, size: saved.size, mime: saved.mime });
  }
  return { inline, attachments };
}
