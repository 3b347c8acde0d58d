'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from '@/trpc/client';

/** The ids of the sessions with a link that still opens (the rows' "Shared" marker), and the instance's mode. */
export function useSharedSessions(): { shared: ReadonlySet<string>; mode: 'off' | 'login' | 'public' | null } {
  const trpc = useTRPC();
  const { data } = useQuery({ ...trpc.share.list.queryOptions(), staleTime: 30_000 });
  const shared = useMemo(() => new Set((data?.links ?? []).filter((link) => !link.expired).map((link) => link.sessionId)), [data]);
  return { shared, mode: data?.mode ?? null };
}
