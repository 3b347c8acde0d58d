/**
 * One exchange's token counts in one shape whatever the wire (DESIGN §15), read from the answer's
 * final `usage` (Messages: `message_start` then `message_delta`, field by field the last value wins;
 * Responses: `response.completed`; Chat Completions: the `stream_options.include_usage` chunk).
 *
 * `input` is the input billed at the input price: the wires disagree on whether their input count
 * holds the cached tokens (Anthropic's does not, OpenAI's does), so OpenAI's cached tokens are taken
 * out of it here. `reasoning` is part of `output` (billed as output), told apart where the wire says.
 * A count the wire does not give is null, never 0: unknown is not free.
 */
import type { Wire } from './types.js';

export interface TokenCounts {
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
  reasoning: number | null;
}

/** `metadata.usage` of an assistant node (DESIGN §15). */
export interface ExchangeUsage extends TokenCounts {
  model: string | null;
  agent: string | null;
  /** ms from the request to the upstream's first byte, and to its last */
  ttfbMs: number | null;
  durationMs: number | null;
  /** how the exchange ended (the proxy's outcome, `complete` for our chat's finished turn) */
  status: string | null;
  /** true: the provider's own final count on the wire; false: an import's estimate */
  exact: boolean;
  /** with `exact: false`: what is known to be wrong with the source's counts */
  estimate?: string;
}

type Json = Record<string, unknown>;

const count = (value: unknown): number | null => (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null);
const object = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});

/** OpenAI's input holds its cached tokens: the uncached part, or the whole when the cache is unknown. */
function uncached(input: number | null, cached: number | null): number | null {
  if (input === null) return null;
  return cached === null ? input : Math.max(0, input - cached);
}

/** Anthropic Messages usage (also Claude Code's transcripts, which copy it). */
export function anthropicCounts(usage: Json): TokenCounts {
  return {
    input: count(usage.input_tokens),
    output: count(usage.output_tokens),
    cacheRead: count(usage.cache_read_input_tokens),
    cacheWrite: count(usage.cache_creation_input_tokens),
    // Extended thinking is billed as output and not counted apart on this wire.
    reasoning: null,
  };
}

/** OpenAI's two wires name the same counts apart: the Responses API `input`/`output`, Chat Completions `prompt`/`completion`. */
function openaiCounts(usage: Json, input: 'input' | 'prompt', output: 'output' | 'completion'): TokenCounts {
  const cached = count(object(usage[`${input}_tokens_details`]).cached_tokens);
  return {
    input: uncached(count(usage[`${input}_tokens`]), cached),
    output: count(usage[`${output}_tokens`]),
    cacheRead: cached,
    // OpenAI does not report (or bill) writes to its prompt cache.
    cacheWrite: null,
    reasoning: count(object(usage[`${output}_tokens_details`]).reasoning_tokens),
  };
}

const responsesCounts = (usage: Json) => openaiCounts(usage, 'input', 'output');
const chatCounts = (usage: Json) => openaiCounts(usage, 'prompt', 'completion');

/** The wire's final usage object as counts; null when the answer carried none. */
export function tokenCounts(wire: Wire, usage: Record<string, unknown> | null): TokenCounts | null {
  if (!usage) return null;
  if (wire === 'anthropic') return anthropicCounts(usage);
  if (wire === 'responses') return responsesCounts(usage);
  return chatCounts(usage);
}

export const UNKNOWN_COUNTS: TokenCounts = { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null };

/** A proxied exchange's usage as recorded: its counts off the wire (all unknown when the answer had none) and what else is known of it. */
export function exchangeUsage(counts: TokenCounts | null, extra: Omit<ExchangeUsage, keyof TokenCounts | 'exact'>): ExchangeUsage {
  return { ...(counts ?? UNKNOWN_COUNTS), ...extra, exact: true };
}
