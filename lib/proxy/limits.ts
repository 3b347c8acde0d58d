import type { AssembledReply } from './types.js';

/**
 * The most of one upstream answer the proxy copies aside for recording (issue 27 item 2). Every
 * byte still goes to the client; past this the copy stops, and the reply is recorded from what
 * was kept, marked `truncated`. Without it a 500 MB answer was held whole, copied to the
 * planning thread and recorded as one 500 MB message (313 MB → 5.1 GB of memory).
 */
export const MAX_RECORDED_ANSWER_BYTES = 16 * 1024 * 1024;

/** Room kept in a recorded reply's message for its other metadata (model, usage, proxy, ids). */
export const REPLY_METADATA_RESERVE_BYTES = 16 * 1024;

/** Open exchanges one user may hold at once (issue 27 item 3): OPENPROGRAM_PROXY_MAX_OPEN_PER_USER, default 32. */
export const DEFAULT_MAX_OPEN_EXCHANGES_PER_USER = 32;

/** The longest one exchange may last, first byte to last: OPENPROGRAM_PROXY_DEADLINE_MS, default 30 min. */
export const DEFAULT_EXCHANGE_DEADLINE_MS = 30 * 60 * 1000;

function positiveInteger(value: string | undefined, fallback: number): number {
  const number = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isSafeInteger(number) && number > 0 ? number : fallback;
}

export function maxOpenExchangesPerUser(env: Record<string, string | undefined> = process.env): number {
  return positiveInteger(env['OPENPROGRAM_PROXY_MAX_OPEN_PER_USER'], DEFAULT_MAX_OPEN_EXCHANGES_PER_USER);
}

export function exchangeDeadlineMs(env: Record<string, string | undefined> = process.env): number {
  return positiveInteger(env['OPENPROGRAM_PROXY_DEADLINE_MS'], DEFAULT_EXCHANGE_DEADLINE_MS);
}

/**
 * Per-user admission of open exchanges: `open` admits one more exchange of `userId` unless the
 * user already holds `cap`, and returns the function that releases it (idempotent), or null past
 * the cap. Other users are never counted against each other.
 */
export class ExchangeSlots {
  private readonly openByUser = new Map<string, number>();

  constructor(private readonly cap: () => number) {}

  count(userId: string): number {
    return this.openByUser.get(userId) ?? 0;
  }

  open(userId: string): (() => void) | null {
    const now = this.count(userId);
    if (now >= this.cap()) return null;
    this.openByUser.set(userId, now + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.count(userId) - 1;
      if (left > 0) this.openByUser.set(userId, left);
      else this.openByUser.delete(userId);
    };
  }
}

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** The longest prefix of `text` whose `measure` is at most `budget`, cut on a character. */
function cutTo(text: string, budget: number, measure: (text: string) => number): string {
  if (measure(text) <= budget) return text;
  if (budget <= 0) return '';
  // UTF-8 first (one pass), then shrink while the measure (JSON escapes) is still over.
  let cut = Buffer.from(text, 'utf8').subarray(0, budget).toString('utf8').replace(/\uFFFD$/, '');
  while (cut.length > 0 && measure(cut) > budget) cut = cut.slice(0, Math.floor((cut.length * budget) / measure(cut)) - 1);
  // never end on half of a surrogate pair
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut;
}

/**
 * The reply cut to fit one message of `maxBytes` (the store's message limit): its text first,
 * then thinking, then tool-call arguments, each to what is left; `truncated` says whether anything
 * was cut. The sizes are measured as the store measures a message (content bytes, metadata JSON).
 */
export function boundReply(reply: AssembledReply, maxBytes: number): { reply: AssembledReply; truncated: boolean } {
  const budget = Math.max(0, maxBytes - REPLY_METADATA_RESERVE_BYTES);
  const json = (value: unknown) => utf8Bytes(JSON.stringify(value));
  const size = (r: AssembledReply) => utf8Bytes(r.text) + (r.thinking.length > 0 ? json(r.thinking) : 0) + (r.toolCalls.length > 0 ? json(r.toolCalls) : 0);
  if (size(reply) <= budget) return { reply, truncated: false };
  const out: AssembledReply = { ...reply, thinking: reply.thinking.map((block) => ({ ...block })), toolCalls: reply.toolCalls.map((call) => ({ ...call })) };
  // the text gets what the thinking and the calls leave, but never less than half of the budget
  const others = (out.thinking.length > 0 ? json(out.thinking) : 0) + (out.toolCalls.length > 0 ? json(out.toolCalls) : 0);
  out.text = cutTo(out.text, Math.max(budget - others, Math.floor(budget / 2)), utf8Bytes);
  for (const block of out.thinking) {
    const over = size(out) - budget;
    if (over <= 0) break;
    block.text = cutTo(block.text, json(block.text) - over, json);
  }
  for (const call of out.toolCalls) {
    const over = size(out) - budget;
    if (over <= 0) break;
    call.arguments = cutTo(call.arguments, json(call.arguments) - over, json);
  }
  // the signatures are dropped last: a cut thinking block can no longer be sent back anyway
  if (size(out) > budget) for (const block of out.thinking) delete block.signature;
  if (size(out) > budget) out.thinking = [];
  if (size(out) > budget) out.toolCalls = [];
  return { reply: out, truncated: true };
}
