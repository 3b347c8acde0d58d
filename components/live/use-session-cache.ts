'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTRPC } from '@/trpc/client';
import { SessionCache } from './session-cache';

/** The tab's SessionCache over its query client. */
export function useSessionCache(): SessionCache {
  const trpc = useTRPC();
  const client = useQueryClient();
  return useMemo(
    () => new SessionCache(client, { listPath: trpc.session.list.pathKey(), getPath: trpc.session.get.pathKey() }),
    [client, trpc],
  );
}
