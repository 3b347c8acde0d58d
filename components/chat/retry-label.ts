'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';
import { useWebChatTakeover } from './web-chat-takeover';

/**
 * What a Retry on this reply says, naming what will answer: a recorded agent's reply whose request
 * the proxy kept, with a key for its upstream now, is asked again there ("Retry with <model>
 * through your <upstream> upstream", chat.retry's `via: 'upstream'`); in another agent's session
 * the web chat answers ("Continue in web chat with <model>"); in the person's own chat, null.
 */
export function useRetryLabel(sessionId: string, through: { upstream: string; model: string } | null): string | null {
  const trpc = useTRPC();
  const takeover = useWebChatTakeover(sessionId);
  // In the cache from the session page's render (the composer reads it too).
  const state = useQuery(trpc.chat.state.queryOptions({ sessionId }));
  if (through && state.data?.agentUpstreams.includes(through.upstream)) {
    return through.model ? `Retry with ${through.model} through your ${through.upstream} upstream` : `Retry through your ${through.upstream} upstream`;
  }
  return takeover;
}
