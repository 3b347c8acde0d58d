'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';

/**
 * What answers a Retry or an Edit in this session, said when it is not the session's own writer:
 * in an agent's session (recorded, imported, written through the API) the web chat's model
 * answers, so the action reads "Continue in web chat with <model>". Null in the person's own
 * chat, where Retry and Edit mean what they say. (Retrying through the agent's upstream, when
 * the proxy holds the request, is not offered yet.)
 */
export function useWebChatTakeover(sessionId: string): string | null {
  const trpc = useTRPC();
  // Both are in the cache from the session page's render.
  const session = useQuery(trpc.session.get.queryOptions({ id: sessionId }));
  const state = useQuery(trpc.chat.state.queryOptions({ sessionId }));
  const wayIn = session.data?.wayIn;
  if (wayIn === undefined || wayIn === 'web chat') return null;
  const model = state.data?.webChatModel;
  return model ? `Continue in web chat with ${model}` : 'Continue in web chat';
}
