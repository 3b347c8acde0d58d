'use client';

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useTRPC } from '@/trpc/client';
import type { SearchScope } from './types';

const DELAY_MS = 150;

/**
 * session.search for what is typed, a moment after typing stops; the previous hits stay on screen
 * while the next ones load. `q` is the settled text (empty: nothing is asked).
 */
export function useMessageSearch(text: string, { scope, limit = 20, delayMs = DELAY_MS }: { scope?: SearchScope; limit?: number; delayMs?: number } = {}) {
  const trpc = useTRPC();
  const [q, setQ] = useState(text.trim());
  useEffect(() => {
    const timer = setTimeout(() => setQ(text.trim()), delayMs);
    return () => clearTimeout(timer);
  }, [text, delayMs]);
  const query = useQuery({
    ...trpc.session.search.queryOptions({ q, limit, ...(scope ? { scope } : {}) }),
    enabled: q.length > 0,
    placeholderData: keepPreviousData,
    // A catching-up index answers more each time: ask again until it is whole.
    refetchInterval: (current) => (current.state.data?.status.state === 'catching_up' ? 1_000 : false),
  });
  return { q, ...query, settled: q === text.trim() && !query.isFetching };
}
