import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { boundReply } from '@/lib/proxy/limits';
import { KeyedLock } from '@/lib/fs/keyed-lock';
import { PROJECT_HEADER, whereaboutsOf } from '@/lib/proxy/project-of';
import { chainOf, IDENTITY_HEADERS, type ExchangeBytes, type PlannedExchange } from '@/lib/proxy/plan';
import { prefixSessionId, sourceOf, type Agent } from '@/lib/proxy/session-identity';
import type { AssembledReply, ExchangeOutcome, Media, ParsedRequest, Step, Wire } from '@/lib/proxy/types';
import type { KeptRequest } from '@/lib/proxy/kept-request';
import { textHash } from '@/lib/proxy/fingerprint';
import { maxMessageBytesFromEnv, type ExchangeStep, type SessionStore } from '@/lib/store/index';
import { getDataDir, getUserStore } from '@/server/runtime';
import { planOffThread } from '@/server/background/background-thread';
import { ResponseIndex, type RecordedResponse } from './response-index';
import { followResume } from './resume-route';
import { recordedUsage } from './exchange-usage';

/** Base64 media larger than this is stored as an attachment, referenced from its node (DESIGN §12). */
export const INLINE_MEDIA_BYTES = 256 * 1024;

export interface FinishedExchange {
  userId: string;
  wire: Wire;
  upstream: string;
  headers: IncomingHttpHeaders;
  /** the request body as the client sent it; null when it was over the limit (moved to the planning thread when `bodySent`) */
  body: Buffer | null;
  /** the body was handed to the upstream's socket in full: nothing reads it any more, so it may move */
  bodySent?: boolean;
  bodyBytes: number;
  status: number;
  contentType: string | null;
  /** what was kept of the answer (forward.ts copies at most MAX_RECORDED_ANSWER_BYTES); moved to the planning thread, not to be read once recorded */
  bytes: Buffer;
  /** how many bytes the answer had in all, when more than `bytes` holds */
  totalBytes?: number;
  outcome: ExchangeOutcome;
  /** performance.now() at the upstream's last byte */
  endedAt: number;
  /** performance.now() when the request went upstream, and at the answer's first byte: the usage's latencies */
  startedAt?: number;
  firstByteAt?: number | null;
  /** a Replay's answer (replay.ts): marked on the reply, and a node of its own even when it reads as the replayed one */
  replay?: ReplayMark;
}

/** `metadata.replay` of a replayed answer: the reply replayed and the model that answered (DESIGN §14). */
export interface ReplayMark {
  of: string;
  model: string;
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
  /** in arrival order: a user's plans (key `<user>/`), then one recording at a time per session (`<user>/<session>`) */
  order: KeyedLock;
  /** a user's commits, one at a time across their sessions (inCommitSlot) */
  commitSlots: KeyedLock;
  /** per user: Responses ids → where their reply was recorded, for previous_response_id */
  responses: Map<string, ResponseIndex>;
  listeners: Set<(summary: RecordedSummary & { userId: string }) => void>;
}

const KEY = Symbol.for('entity-memory.proxy-recorder');
const holder = globalThis as typeof globalThis & { [KEY]?: ProxyState };
function state(): ProxyState {
  return (holder[KEY] ??= { order: new KeyedLock(), commitSlots: new KeyedLock(), responses: new Map(), listeners: new Set() });
}

function responseIndex(userId: string): ResponseIndex {
  const { responses } = state();
  let index = responses.get(userId);
  if (!index) {
    index = new ResponseIndex(join(getDataDir(), 'users', userId, 'proxy-responses.jsonl'));
    responses.set(userId, index);
  }
  return index;
}

/** For the bench and tests: each committed recording, with how long it took. */
export function onRecorded(listener: (summary: RecordedSummary & { userId: string }) => void): () => void {
  state().listeners.add(listener);
  return () => state().listeners.delete(listener);
}

/** The identity headers only: the provider key and our token stay on the request's path. */
function identityHeaders(headers: IncomingHttpHeaders): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const name of IDENTITY_HEADERS) {
    const value = headers[name];
    out[name] = (Array.isArray(value) ? value[0] : value) ?? null;
  }
  return out;
}

/**
 * Record one finished exchange, off the client's path (the client does not wait): read in the
 * planning thread, committed here one session at a time. Errors are logged without the request
 * or any header: nothing a provider key could be in.
 */
export function recordInBackground(exchange: FinishedExchange): Promise<void> {
  // Settles (never rejects) once the recording is committed or given up: the handler holds the user's move gate until then.
  return recordExchangeNow(exchange).then(
    () => undefined,
    (error: unknown) => {
      console.error(`[proxy] recording a ${exchange.wire} exchange failed: ${(error as Error).message}`);
    },
  );
}

export async function recordExchangeNow(exchange: FinishedExchange): Promise<RecordedSummary | null> {
  const { order } = state();
  // The kept answer and the body move to the planning thread (no copy on this thread): from here
  // on they are read by their sizes only.
  const sizes: ExchangeSizes = { recorded: exchange.bytes.length, answer: answerBytes(exchange) };
  // Planned at once (off the thread); the session is known only once planned, so a user's plans
  // are settled in arrival order, and then each session records one exchange at a time.
  const planned = planOffThread(toBytes(exchange), exchange.bodySent ? [exchange.body, exchange.bytes] : [exchange.bytes]);
  // A resumed run's exchange goes to the session it was resumed from: placed in the user's order too.
  const plan = await order.run(`${exchange.userId}/`, async () => {
    const settled = settle(exchange, await planned);
    return settled ? followResume(exchange.userId, settled) : null;
  });
  if (!plan) return null;
  return order.run(`${exchange.userId}/${plan.sessionId}`, () => inCommitSlot(exchange.userId, () => commit(exchange, plan, sizes)));
}

/**
 * A user's commits run one at a time across their sessions, each after a turn of the event loop:
 * a commit's synchronous stretches (node files, git objects) then come one per loop turn between
 * the forwarded chunks, instead of twenty commits resuming back to back in one turn. Per user,
 * so one user's slow session (its lock held by an export) never holds another user's recordings.
 */
function inCommitSlot<T>(userId: string, work: () => Promise<T>): Promise<T> {
  return state().commitSlots.run(userId, async () => {
    // Yield to I/O first: a chunk waiting to be forwarded goes before this commit.
    await new Promise((resolve) => setImmediate(resolve));
    return work();
  });
}

/** The answer's size in all: more than was kept when the copy stopped at its limit. */
const answerBytes = (exchange: FinishedExchange) => Math.max(exchange.totalBytes ?? 0, exchange.bytes.length);

/** Bytes of the answer kept for recording (`recorded`) and sent in all (`answer`), taken before the bytes move to the planning thread. */
interface ExchangeSizes {
  recorded: number;
  answer: number;
}

function toBytes(exchange: FinishedExchange): ExchangeBytes {
  return { wire: exchange.wire, upstream: exchange.upstream, headers: identityHeaders(exchange.headers), body: exchange.body, contentType: exchange.contentType, bytes: exchange.bytes, truncated: answerBytes(exchange) > exchange.bytes.length, outcome: exchange.outcome, maxReplyBytes: maxMessageBytesFromEnv() };
}

interface Plan {
  sessionId: string;
  agent: Agent | null;
  parsed: ParsedRequest | null;
  reply: AssembledReply | null;
  after: RecordedResponse | null;
  fingerprints: (string | null)[];
  replyFingerprint: string | null;
  /** planned: forwarding's outcome, or `error_event` for an error inside a 2xx */
  outcome: ExchangeOutcome;
  kept: KeptRequest | null;
  /** the planning thread cut the reply to one message */
  replyCut: boolean;
}

/** The planned exchange placed: the session of its previous_response_id, else of its first message. */
function settle(exchange: FinishedExchange, planned: PlannedExchange): Plan | null {
  if (!planned.record) return null;
  const { parsed, reply } = planned;
  if (!parsed) return planned.sessionId ? { sessionId: planned.sessionId, agent: planned.agent, parsed: null, reply: null, after: null, fingerprints: [], replyFingerprint: null, outcome: planned.outcome, kept: null, replyCut: false } : null;
  const after = parsed.previousResponseId ? responseIndex(exchange.userId).get(parsed.previousResponseId) : null;
  // The request holds only what follows that reply (short): chained after it.
  const { fingerprints: chain, replyFingerprint } = after ? chainOf(parsed.steps, reply, after.fingerprint) : planned;
  let sessionId = planned.sessionId ?? after?.sessionId ?? null;
  if (!sessionId) {
    const first = planned.fingerprints.find((fingerprint) => fingerprint !== null);
    if (!first) return null;
    sessionId = prefixSessionId(first);
  }
  return { sessionId, agent: planned.agent, parsed, reply, after, fingerprints: chain, replyFingerprint, outcome: planned.outcome, kept: planned.kept ?? null, replyCut: planned.replyCut ?? false };
}

const turnStatus = (outcome: ExchangeOutcome): 'idle' | 'failed' | 'cancelled' => (outcome === 'complete' ? 'idle' : outcome === 'client_gone' ? 'cancelled' : 'failed');

async function commit(exchange: FinishedExchange, plan: Plan, sizes: ExchangeSizes): Promise<RecordedSummary> {
  const store = await getUserStore(exchange.userId);
  const source = sourceOf(plan.agent, exchange.wire);
  const agentId = plan.agent ?? (exchange.wire === 'anthropic' ? 'anthropic' : 'openai');
  await store.createSession({ id: plan.sessionId, source, agentId });
  const outcome = plan.outcome;
  const proxyMeta: Record<string, unknown> = { wire: exchange.wire, upstream: exchange.upstream, status: exchange.status, outcome };
  const copyCut = sizes.answer > sizes.recorded;

  let steps: ExchangeStep[];
  let reply: ExchangeStep | null = null;
  const replyFingerprint = plan.replyFingerprint;
  if (!plan.parsed) {
    steps = [{ role: 'user', content: `[a request of ${exchange.bodyBytes} bytes, over the proxy's limit: not recorded]`, metadata: { proxy: proxyMeta } }];
  } else {
    const chain = plan.fingerprints;
    steps = await Promise.all(plan.parsed.steps.map((step, index) => toExchangeStep(store, plan.sessionId, step, chain[index] ?? undefined)));
    if (plan.reply && replyFingerprint) {
      // One message at most the store's message limit: a reply over it is cut (issue 27 item 2), in the planning thread.
      const bounded = boundReply(plan.reply, maxMessageBytesFromEnv());
      const answer = bounded.reply;
      // Marked when anything of the answer is missing from the record: the copy stopped, or the reply was cut to fit.
      const cutMeta = copyCut || bounded.truncated || plan.replyCut ? { ...proxyMeta, truncated: true, response_bytes: sizes.answer, recorded_bytes: sizes.recorded } : proxyMeta;
      // Said on the reply, so the page can offer its Retry through this upstream (upstream-retry.ts).
      const replyProxyMeta = plan.kept ? { ...cutMeta, request_kept: true } : cutMeta;
      const outcomeError =
        outcome === 'client_gone' ? 'the client went away before the end' : outcome === 'timeout' ? 'the upstream timed out or broke off' : outcome === 'deadline' ? "the exchange passed the proxy's deadline and was ended" : null;
      // Nothing came at all: say why, not that the (empty) answer was unreadable.
      const error = sizes.recorded === 0 ? (outcomeError ?? answer.error) : (answer.error ?? outcomeError);
      reply = {
        role: 'assistant',
        fingerprint: exchange.replay ? textHash(`${replyFingerprint}\nreplay\n${exchange.replay.of}\n${exchange.replay.model}`) : replyFingerprint,
        content: answer.text,
        toolCalls: answer.toolCalls,
        metadata: {
          model: answer.model ?? plan.parsed.model ?? '',
          ...(answer.thinking.length > 0 ? { thinking: answer.thinking } : {}),
          usage: recordedUsage(exchange, answer, plan),
          ...(answer.usage ? { usage_wire: answer.usage } : {}),
          ...(answer.stopReason ? { stop_reason: answer.stopReason } : {}),
          ...(answer.id ? { response_id: answer.id } : {}),
          ...(error ? { error } : {}),
          proxy: replyProxyMeta,
          ...(exchange.replay ? { replay: exchange.replay } : {}),
        },
      };
    }
  }
  const context = plan.parsed
    ? { wire: exchange.wire, model: plan.parsed.model, tools: plan.parsed.tools, stream: plan.parsed.stream, upstream: exchange.upstream, status: exchange.status, outcome, request_bytes: exchange.bodyBytes, response_bytes: sizes.answer, ...(copyCut ? { recorded_bytes: sizes.recorded, truncated: true } : {}), ...(plan.kept ? { request: plan.kept } : {}) }
    : undefined;
  const result = await store.recordExchange(
    { sessionId: plan.sessionId, steps, after: plan.after?.nodeId ?? null, reply, system: plan.parsed?.system ?? null, context },
    { source, agentId, status: turnStatus(outcome), model: plan.parsed?.model ?? undefined, where: whereaboutsOf(exchange.headers[PROJECT_HEADER], plan.parsed), answerEndedAt: performance.timeOrigin + exchange.endedAt },
  );
  const replyId = result.replyId;
  if (replyId && plan.reply?.id && exchange.wire === 'responses' && replyFingerprint) {
    // On disk before the recording is reported: a restart still continues from this reply.
    await responseIndex(exchange.userId).add(plan.reply.id, { sessionId: plan.sessionId, nodeId: replyId, fingerprint: replyFingerprint });
  }
  const summary: RecordedSummary = { sessionId: plan.sessionId, replyId, turn: result.turn, agent: plan.agent, outcome, status: exchange.status, recordMs: performance.now() - exchange.endedAt };
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

const EXTENSION_OF_MIME: Record<string, string> = { 'text/plain': 'txt', 'text/markdown': 'md', 'image/jpeg': 'jpg', 'image/svg+xml': 'svg' };

/** Text carried as base64 (a document of source code, notes, JSON): the redactor cannot read it there. */
const isTextMime = (mime: string): boolean => /^text\/|^application\/(json|xml|x-yaml|yaml|javascript|x-sh)\b|\+(json|xml)$/i.test(mime);

/**
 * Small media stays in the node; large base64 media becomes an attachment of the session, and so
 * does base64 text of any size: as an attachment it is decoded and redacted before it is written,
 * inline its secrets would reach git under the encoding.
 */
async function splitMedia(store: SessionStore, sessionId: string, media: Media[]): Promise<{ inline: Media[]; attachments: unknown[] }> {
  const inline: Media[] = [];
  const attachments: unknown[] = [];
  for (const [index, item] of media.entries()) {
    const bytes = item.data ? Math.floor((item.data.length * 3) / 4) : 0;
    if (!item.data || (bytes <= INLINE_MEDIA_BYTES && !isTextMime(item.mime))) {
      inline.push(item);
      continue;
    }
    const extension = EXTENSION_OF_MIME[item.mime.toLowerCase()] ?? (item.mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin');
    const saved = await store.saveAttachment(sessionId, { name: `${item.kind}-${index + 1}.${extension}`, data: Buffer.from(item.data, 'base64'), mime: item.mime });
    attachments.push({ id: saved.id, name: saved.name, size: saved.size, mime: saved.mime });
  }
  return { inline, attachments };
}
