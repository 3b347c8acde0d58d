'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Coins } from 'lucide-react';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { formatCost, formatRate, formatTokens } from '@/components/usage/usage-format';
import { useTRPC } from '@/trpc/client';

/** The session header's usage (DESIGN §15): its tokens, cost and cache hit rate; nothing before its first counted answer. */
export function SessionUsage({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const figures = useQuery(trpc.usage.session.queryOptions({ sessionId }));
  // A new answer may carry usage: read the figures again (the rollups count it as the feed tells them).
  useLiveEvents((event) => {
    if (event.type === 'message_appended' && event.data.sessionId === sessionId && event.data.message.role === 'assistant') {
      void queryClient.invalidateQueries({ queryKey: trpc.usage.session.queryKey({ sessionId }) });
    }
  });
  const data = figures.data;
  if (!data || data.exchanges === 0) return null;
  const estimated = data.estimated > 0 ? ` (${data.estimated === data.exchanges ? 'estimated' : `${data.estimated} estimated`}: imported counts)` : '';
  return (
    <p aria-label="Session usage" className="inline-flex flex-wrap items-center gap-x-3 gap-y-1 px-1 text-sm text-neutral-600 dark:text-neutral-400">
      <Coins aria-hidden size={16} />
      <span>Input {formatTokens(data.input)}</span>
      <span>Output {formatTokens(data.output)}</span>
      <span>Cache read {formatTokens(data.cacheRead)}</span>
      <span>Cache hit {formatRate(data.cacheHitRate)}</span>
      <span>Cost {formatCost(data)}{estimated}</span>
    </p>
  );
}
