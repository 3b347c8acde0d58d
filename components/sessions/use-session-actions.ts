'use client';

import { useMutation } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { useMemo } from 'react';
import { toast } from 'sonner';
import { useSessionCache } from '@/components/live/use-session-cache';
import { useTRPC } from '@/trpc/client';
import { displayTitle } from './display-title';
import type { SessionRow } from './session-types';

type Fields = Partial<Pick<SessionRow, 'title' | 'pinned' | 'unread' | 'archived'>>;

function codeOf(error: unknown): string | undefined {
  return error instanceof TRPCClientError ? (error.data as { code?: string } | undefined)?.code : undefined;
}

function reasonOf(error: unknown): string {
  if (codeOf(error) === 'NOT_FOUND') return 'the session no longer exists';
  return error instanceof Error ? error.message : String(error);
}

/**
 * The row actions of the sidebar and the Chats page. Each change shows at once (written into the
 * cache) and is undone, with a toast that says why, when the server refuses it. A session the
 * server no longer has is taken out of the lists instead.
 */
export function useSessionActions() {
  const trpc = useTRPC();
  const cache = useSessionCache();
  // mutateAsync is stable across renders; the mutation objects are not.
  const update = useMutation(trpc.session.update.mutationOptions()).mutateAsync;
  const setArchived = useMutation(trpc.session.setArchived.mutationOptions()).mutateAsync;
  const remove = useMutation(trpc.session.delete.mutationOptions()).mutateAsync;
  const regenerate = useMutation(trpc.session.regenerateTitle.mutationOptions()).mutateAsync;
  const bulk = useMutation(trpc.session.bulk.mutationOptions()).mutateAsync;

  return useMemo(() => {
    async function change(row: SessionRow, fields: Fields, what: string, send: () => Promise<unknown>) {
      const before: Fields = {};
      for (const key of Object.keys(fields) as (keyof Fields)[]) (before as Record<string, unknown>)[key] = row[key];
      cache.patch({ id: row.id, ...fields });
      try {
        await send();
      } catch (error) {
        if (codeOf(error) === 'NOT_FOUND') cache.remove(row.id);
        else cache.patch({ id: row.id, ...before });
        toast.error(`Could not ${what} “${displayTitle(row)}”: ${reasonOf(error)}`);
      }
    }

    return {
      rename: (row: SessionRow, title: string) => change(row, { title }, 'rename', () => update({ id: row.id, title })),
      setPinned: (row: SessionRow, pinned: boolean) =>
        change(row, { pinned }, pinned ? 'pin' : 'unpin', () => update({ id: row.id, pinned })),
      setUnread: (row: SessionRow, unread: boolean) =>
        change(row, { unread }, unread ? 'mark as unread' : 'mark as read', () => update({ id: row.id, unread })),
      setArchived: (row: SessionRow, archived: boolean) =>
        change(row, { archived }, archived ? 'archive' : 'unarchive', () => setArchived({ id: row.id, archived })),

      async remove(row: SessionRow) {
        cache.remove(row.id);
        try {
          await remove({ id: row.id });
        } catch (error) {
          if (codeOf(error) !== 'NOT_FOUND') cache.put(row);
          toast.error(`Could not delete “${displayTitle(row)}”: ${reasonOf(error)}`);
        }
      },

      async regenerateTitle(row: SessionRow) {
        try {
          const next = await regenerate({ id: row.id });
          cache.patch({ id: row.id, title: next.title });
          toast.success(`New title: ${displayTitle(next)}`);
        } catch (error) {
          if (codeOf(error) === 'PRECONDITION_FAILED') {
            toast.error('No title model is configured. An admin sets OPENPROGRAM_LLM_BASE_URL and OPENPROGRAM_LLM_MODEL on the server.');
          } else {
            if (codeOf(error) === 'NOT_FOUND') cache.remove(row.id);
            toast.error(`Could not regenerate the title of “${displayTitle(row)}”: ${reasonOf(error)}`);
          }
        }
      },

      /** session.bulk over the selected rows, shown at once; rows the server did not change come back. */
      async bulk(rows: SessionRow[], action: 'archive' | 'unarchive' | 'delete' | 'markRead') {
        if (rows.length === 0) return;
        const apply = (row: SessionRow) => {
          if (action === 'delete') cache.remove(row.id);
          else if (action === 'markRead') cache.patch({ id: row.id, unread: false });
          else cache.patch({ id: row.id, archived: action === 'archive' });
        };
        rows.forEach(apply);
        try {
          const { missing } = await bulk({ ids: rows.map((row) => row.id), action });
          for (const id of missing) cache.remove(id);
          if (missing.length > 0) toast.error(`${missing.length} of the selected sessions no longer exist.`);
        } catch (error) {
          for (const row of rows) cache.put(row);
          toast.error(`Could not change the selected sessions: ${reasonOf(error)}`);
        }
      },
    };
  }, [cache, update, setArchived, remove, regenerate, bulk]);
}

export type SessionActions = ReturnType<typeof useSessionActions>;
