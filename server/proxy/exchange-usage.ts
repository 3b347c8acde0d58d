import type { AssembledReply } from '@/lib/proxy/types';
import { exchangeUsage, tokenCounts, type ExchangeUsage } from '@/lib/proxy/usage';
import type { FinishedExchange } from './recorder';

const ms = (from: number | undefined, to: number | null | undefined): number | null => (from !== undefined && to !== undefined && to !== null ? Math.max(0, Math.round(to - from)) : null);

/**
 * A proxied answer's `metadata.usage` (DESIGN §15): the counts of the wire's final usage (the
 * assembler keeps the last, never a sum of a stream's snapshots), the model and agent, the
 * latencies forwarding measured and how the exchange ended.
 */
export function recordedUsage(exchange: FinishedExchange, answer: AssembledReply, plan: { agent: string | null; parsed: { model: string | null } | null; outcome: string }): ExchangeUsage {
  return exchangeUsage(tokenCounts(exchange.wire, answer.usage), {
    model: answer.model ?? plan.parsed?.model ?? null,
    agent: plan.agent,
    ttfbMs: ms(exchange.startedAt, exchange.firstByteAt),
    durationMs: ms(exchange.startedAt, exchange.endedAt),
    status: plan.outcome,
  });
}
