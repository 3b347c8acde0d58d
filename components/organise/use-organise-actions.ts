'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { toast } from 'sonner';
import { useSessionCache } from '@/components/live/use-session-cache';
import { displayTitle } from '@/components/sessions/display-title';
import type { SessionRow } from '@/components/sessions/session-types';
import { useTRPC } from '@/trpc/client';
import type { SessionStateName } from './tag-look';

/**
 * Tags and state of sessions (DESIGN §16): shown at once through the session cache, put back with
 * a toast that says why when the server refuses; the tag counts are fetched again afterwards.
 */
export function useOrganiseActions() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const cache = useSessionCache();
  const update = useMutation(trpc.session.update.mutationOptions()).mutateAsync;
  const edit = useMutation(trpc.tag.edit.mutationOptions()).mutateAsync;
  const bulk = useMutation(trpc.tag.bulk.mutationOptions()).mutateAsync;

  return useMemo(() => {
    const recount = () => void client.invalidateQueries({ queryKey: trpc.tag.list.queryKey() });
    const failed = (what: string, error: unknown) => toast.error(`Could not ${what}: ${error instanceof Error ? error.message : String(error)}`);
    return {
      async setState(row: SessionRow, state: SessionStateName | null) {
        cache.patch({ id: row.id, state });
        try {
          await update({ id: row.id, state });
        } catch (error) {
          cache.patch({ id: row.id, state: row.state });
          failed(`set the state of “${displayTitle(row)}”`, error);
        }
      },
      /** true when the server took it; the row it answers is what the lists show. */
      async editTags(row: SessionRow, add: string[], remove: string[]): Promise<boolean> {
        try {
          const next = await edit({ id: row.id, add, remove });
          cache.patch({ id: row.id, tags: next.tags });
          recount();
          return true;
        } catch (error) {
          failed(`change the tags of “${displayTitle(row)}”`, error);
          return false;
        }
      },
      async bulkTags(rows: SessionRow[], add: string[], remove: string[]): Promise<void> {
        try {
          const result = await bulk({ ids: rows.map((row) => row.id), add, remove });
          for (const id of result.missing) cache.remove(id);
          // the rows' new tags arrive as session_updated; counts now
          recount();
          toast.success(`${add.length > 0 ? 'Tagged' : 'Untagged'} ${result.done.length} ${result.done.length === 1 ? 'session' : 'sessions'}`);
        } catch (error) {
          failed('change the tags of the selected sessions', error);
        }
      },
    };
  }, [bulk, cache, client, edit, trpc, update]);
}
