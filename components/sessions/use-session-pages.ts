'use client';

import { keepPreviousData, skipToken, useInfiniteQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';
import type { SessionListInput } from './session-types';

/**
 * One paged session.list. The event stream keeps it current (and `resync` refetches it), so it
 * never goes stale by age: a refetch of an infinite query refetches every page it holds.
 */
export function useSessionPages(input: SessionListInput | null, keepPrevious = false) {
  const trpc = useTRPC();
  return useInfiniteQuery({
    ...trpc.session.list.infiniteQueryOptions(input ?? skipToken, { getNextPageParam: (page) => page.nextCursor }),
    staleTime: Infinity,
    placeholderData: keepPrevious ? keepPreviousData : undefined,
  });
}
