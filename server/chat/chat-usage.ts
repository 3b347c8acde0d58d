import type { StreamedReply } from '@/lib/llm/chat-client';
import { exchangeUsage, tokenCounts, type ExchangeUsage } from '@/lib/proxy/usage';

/** Our own chat's answer as `metadata.usage` (DESIGN §15): the Chat Completions wire's last usage, exact. */
export function chatUsage(model: string, reply: StreamedReply): ExchangeUsage {
  return exchangeUsage(tokenCounts('chat', reply.usage), { model, agent: null, ttfbMs: reply.ttfbMs, durationMs: reply.durationMs, status: 'complete' });
}
