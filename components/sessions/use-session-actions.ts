'use client';

import { useMutation } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { useMemo } from 'react';
import { toast } from 'sonner';
import { useSessionCache } from '@/components/live/use-session-cache';
import { useTRPC } from '@/trpc/client';
import { cancelDelete, deferDelete, DELETE_GRACE_MS } from './deferred-delete';
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
    async function change(row: SessionRow, fields: Fields, what: string, send: () => Promise<unknown>): Promise<boolean> {
      const before: Fields = {};
      for (const key of Object.keys(fields) as (keyof Fields)[]) (before as Record<string, unknown>)[key] = row[key];
      cache.patch({ id: row.id, ...fields });
      try {
        await send();
        return true;
      } catch (error) {
        if (codeOf(error) === 'NOT_FOUND') cache.remove(row.id);
        else cache.patch({ id: row.id, ...before });
        toast.error(`Could not ${what} “${displayTitle(row)}”: ${reasonOf(error)}`);
        return false;
      }
    }

    const archive = (row: SessionRow, archived: boolean) =>
      change(row, { archived }, archived ? 'archive' : 'unarchive', () => setArchived({ id: row.id, archived }));

    return {
      rename: (row: SessionRow, title: string) => change(row, { title }, 'rename', () => update({ id: row.id, title })),
      setPinned: (row: SessionRow, pinned: boolean) =>
        change(row, { pinned }, pinned ? 'pin' : 'unpin', () => update({ id: row.id, pinned })),
      setUnread: (row: SessionRow, unread: boolean) =>
        change(row, { unread }, unread ? 'mark as unread' : 'mark as read', () => update({ id: row.id, unread })),
      /** Archiving says so with an Undo (unarchiving is its own undo). */
      async setArchived(row: SessionRow, archived: boolean) {
        if (!(await archive(row, archived)) || !archived) return;
        toast.success(`Archived “${displayTitle(row)}”`, { action: { label: 'Undo', onClick: () => void archive({ ...row, archived: true }, false) } });
      },

      /**
       * Gone from the lists at once, deleted after a grace period with an Undo in the toast (or
       * as the page is left): a delete is the one change that cannot be taken back afterwards.
       */
      remove(row: SessionRow, onUndo?: () => void) {
        cache.remove(row.id);
        deferDelete(row.id, async () => {
          try {
            await remove({ id: row.id });
          } catch (error) {
            if (codeOf(error) !== 'NOT_FOUND') cache.put(row);
            toast.error(`Could not delete “${displayTitle(row)}”: ${reasonOf(error)}`);
          }
        });
        toast(`Deleted “${displayTitle(row)}”`, {
          duration: DELETE_GRACE_MS,
          action: {
            label: 'Undo',
            onClick: () => {
              if (!cancelDelete(row.id)) return;
              cache.put(row);
              onUndo?.();
            },
          },
        });
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
          const changed = rows.filter((row) => !missing.includes(row.id));
          if (action === 'archive' && changed.length > 0) {
            const undo = () => {
              changed.forEach((row) => cache.patch({ id: row.id, archived: false }));
              void bulk({ ids: changed.map((row) => row.id), action: 'unarchive' }).catch((error: unknown) => {
                changed.forEach((row) => cache.patch({ id: row.id, archived: true }));
                toast.error(`Could not unarchive the sessions: ${reasonOf(error)}`);
              });
            };
            toast.success(`Archived ${changed.length} ${changed.length === 1 ? 'session' : 'sessions'}`, { action: { label: 'Undo', onClick: undo } });
          }
        } catch (error) {
          for (const row of rows) cache.put(row);
          toast.error(`Could not change the selected sessions: ${reasonOf(error)}`);
        }
      },
    };
  }, [cache, update, setArchived, remove, regenerate, bulk]);
}

export type SessionActions = ReturnType<typeof useSessionActions>;
