import { createHash } from 'node:crypto';
import { assembleReply } from './assemble.js';
import { chainFingerprint, fingerprints } from './fingerprint.js';
import { parseRequest } from './request.js';
import { chooseSession, type Agent } from './session-identity.js';
import { keepRequest, type KeptRequest } from './kept-request.js';
import { boundReply } from './limits.js';
import { emptyReply, type AssembledReply, type ExchangeOutcome, type ParsedRequest, type Step, type Wire } from './types.js';

/** The request headers that say which session and which agent: nothing else goes off the request's path (no key). */
export const IDENTITY_HEADERS = ['user-agent', 'originator', 'x-entity-memory-session', 'x-claude-code-session-id', 'session-id', 'session_id'] as const;

/** One finished exchange as bytes: what planning needs (the CPU-heavy part, done in a worker thread). */
export interface ExchangeBytes {
  wire: Wire;
  upstream: string;
  /** IDENTITY_HEADERS only, lower-case names */
  headers: Record<string, string | null>;
  /** the request body; null when it was over the limit (not read) */
  body: Uint8Array | null;
  contentType: string | null;
  /** what the upstream sent (and the client got), up to the proxy's copy limit */
  bytes: Uint8Array;
  /** the upstream sent more than `bytes` holds: the copy stopped at its limit */
  truncated?: boolean;
  outcome: ExchangeOutcome;
  /**
   * The most one recorded message may hold (the store's message limit): the reply is cut to it
   * here, in the planning thread, so a 16 MiB answer's text never comes back to the request thread.
   */
  maxReplyBytes?: number;
}

export interface PlannedExchange {
  /** false: nothing to record (a body that is no JSON, an agent's side call without tools) */
  record: boolean;
  /** the session the headers or the body name; null: by previous_response_id or the first message */
  sessionId: string | null;
  agent: Agent | null;
  /** null for a request over the limit */
  parsed: ParsedRequest | null;
  reply: AssembledReply | null;
  /** each step's chained fingerprint from the start of the conversation (null for tool results) */
  fingerprints: (string | null)[];
  /** the reply's, chained after the last step */
  replyFingerprint: string | null;
  /**
   * The exchange's outcome as recorded: forwarding's, except that a 2xx whose bytes carry an
   * error (an `error` event after a 200, a Responses `response.failed`) is `error_event`, so the
   * turn is recorded as failed (DESIGN §12) and not as a complete answer.
   */
  outcome: ExchangeOutcome;
  /** the request as kept for a retry through the same upstream (kept-request.ts); null: not kept */
  kept?: KeptRequest | null;
  /** the reply was cut to `maxReplyBytes` (its fingerprint is the whole reply's) */
  replyCut?: boolean;
}

const NOTHING: Omit<PlannedExchange, 'outcome'> = { record: false, sessionId: null, agent: null, parsed: null, reply: null, fingerprints: [], replyFingerprint: null };

/** Who ended an exchange whose answer may already be whole: the client, the upstream, the deadline. */
const CLOSED_EARLY: ReadonlySet<ExchangeOutcome> = new Set(['client_gone', 'timeout', 'deadline']);

/**
 * Forwarding only sees how the exchange ended; the reply says whether the answer was whole. Its
 * terminal event (`message_stop`, `response.completed`, `[DONE]`) arrived: complete, whoever
 * closed first (Codex hangs up on `response.completed` while an upstream may end its stream a
 * little later). An error reported inside a 2xx is read off the reply too.
 */
function outcomeOf(exchange: ExchangeBytes, reply: AssembledReply | null): ExchangeOutcome {
  const outcome = CLOSED_EARLY.has(exchange.outcome) && reply?.finished && !exchange.truncated ? 'complete' : exchange.outcome;
  return outcome === 'complete' && reply?.error && !unreadable(exchange) ? 'error_event' : outcome;
}

/** The last fingerprint of a chain, or `start` when it has none. */
function lastFingerprint(chain: readonly (string | null)[], start = ''): string {
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i]) return chain[i]!;
  return start;
}

/** The reply as a step of the conversation, for its fingerprint. */
function replyStep(reply: AssembledReply): Step {
  return { role: 'assistant', text: reply.text, thinking: reply.thinking, toolCalls: reply.toolCalls };
}

/**
 * A request over the limit that no header places (an SDK without a session header): its body
 * was never read, so it goes to one session per upstream, where its metadata-only turn is seen.
 */
export function overLimitSessionId(upstream: string): string {
  return `px-${createHash('sha256').update(`over-limit\n${upstream}`).digest('hex').slice(0, 32)}`;
}

/** A single JSON body cut at the copy limit cannot be read at all: not a stream, which reads as far as it goes. */
function unreadable(exchange: ExchangeBytes): boolean {
  return exchange.truncated === true && !/^text\/event-stream/i.test(exchange.contentType ?? '');
}

/** The reply in the bytes; for an unreadable cut body, that it was not read (not its first bytes as an error). */
function readReply(exchange: ExchangeBytes, bytes: Buffer): AssembledReply {
  if (!unreadable(exchange)) return assembleReply(exchange.wire, exchange.contentType, bytes);
  return { ...emptyReply(), error: `the answer was over the ${bytes.length} bytes the proxy keeps of one answer: not read` };
}

/**
 * Read one exchange: the request's conversation and fingerprints, which session the headers
 * name, the reply reassembled from the bytes. Pure: the same in a worker thread or not.
 */
export function planExchange(exchange: ExchangeBytes): PlannedExchange {
  const get = (name: string): string | null => exchange.headers[name]?.trim() || null;
  if (exchange.body === null) {
    // Over the limit: a metadata-only turn, in the session the headers name or the upstream's own.
    const choice = chooseSession(get, parseRequest(exchange.wire, null));
    return { ...NOTHING, record: true, sessionId: choice.sessionId ?? overLimitSessionId(exchange.upstream), agent: choice.agent, outcome: exchange.outcome };
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(exchange.body.buffer, exchange.body.byteOffset, exchange.body.byteLength).toString('utf8'));
  } catch {
    return { ...NOTHING, outcome: exchange.outcome }; // the upstream answered the bad body; there is no conversation to record
  }
  const parsed = parseRequest(exchange.wire, json);
  const choice = chooseSession(get, parsed);
  // Claude Code's side calls (quota check, titles, topic detection) offer no tools: not the conversation.
  if (choice.agent === 'claude-code' && parsed.tools.length === 0) return { ...NOTHING, outcome: exchange.outcome };
  const bytes = Buffer.from(exchange.bytes.buffer, exchange.bytes.byteOffset, exchange.bytes.byteLength);
  const reply = exchange.outcome === 'upstream_unreachable' ? null : readReply(exchange, bytes);
  // Kept only where the page offers Retry: a reply that ends the turn (one that calls tools is a step of it),
  // so an agent's many tool steps do not each store the whole conversation again.
  const kept = reply && reply.toolCalls.length === 0 ? keepRequest(exchange.wire, json, exchange.body.byteLength) : null;
  // Fingerprinted and judged whole, then cut to one message: the next request repeats the whole reply.
  const bounded = reply && exchange.maxReplyBytes !== undefined ? boundReply(reply, exchange.maxReplyBytes) : { reply, truncated: false };
  return { record: true, sessionId: choice.sessionId, agent: choice.agent, parsed, reply: bounded.reply, ...chainOf(parsed.steps, reply), outcome: outcomeOf(exchange, reply), kept, replyCut: bounded.truncated };
}

/**
 * The fingerprints of a request's steps and of its reply, chained from `after` (the fingerprint
 * of the recorded reply a `previous_response_id` names: such a request holds only what follows it).
 */
export function chainOf(steps: readonly Step[], reply: AssembledReply | null, after = ''): { fingerprints: (string | null)[]; replyFingerprint: string | null } {
  const chain = after ? fingerprints(steps, after) : fingerprints(steps);
  return { fingerprints: chain, replyFingerprint: reply ? chainFingerprint(lastFingerprint(chain, after), replyStep(reply)) : null };
}
