'use client';

import { useQueryClient } from '@tanstack/react-query';
import { rowOf } from '@/components/sessions/session-types';
import { useTRPC } from '@/trpc/client';
import { useLiveEvents } from './live-events-provider';
import { useSessionCache } from './use-session-cache';

/**
 * Keeps every cached session list and session live from the tab's event stream. Appends and
 * turns reach the rows through the session_updated the server sends with them ({id, updatedAt,
 * preview}), so message events need nothing here. A row no cached query knows (unarchived by the
 * CLI while only the active list is loaded, an append to a session not paged in yet) is fetched
 * once and placed.
 */
export function useSessionCacheSync(): void {
  const trpc = useTRPC();
  const client = useQueryClient();
  const cache = useSessionCache();

  useLiveEvents((event) => {
    switch (event.type) {
      case 'session_created':
        cache.put(event.data);
        break;
      case 'session_updated':
        if (!cache.patch(event.data)) {
          const id = event.data.id;
          void client
            .fetchQuery({ ...trpc.session.get.queryOptions({ id }), staleTime: 0 })
            .then((detail) => cache.put(rowOf(detail)))
            .catch(() => undefined); // deleted meanwhile: its session_deleted follows
        }
        break;
      case 'session_deleted':
        cache.remove(event.data.id);
        break;
      case 'resync':
        void client.invalidateQueries();
        break;
      default:
        break;
    }
  });
}
