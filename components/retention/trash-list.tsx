'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { LocalTime } from '@/components/session/local-time';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { FormMessage } from '@/components/ui/form-message';
import { useTRPC } from '@/trpc/client';
import { TRASH_KEEP_DAYS } from './retention-words';

/**
 * The Trash page's list (DESIGN §17): what retention moved out, newest first, with when it will be
 * deleted; Restore gives a session back whole, "Delete now" (after a confirmation) removes it for good.
 */
export function TrashList() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const list = useQuery(trpc.trash.list.queryOptions());
  const refresh = () => void client.invalidateQueries({ queryKey: trpc.trash.list.pathKey() });
  const restore = useMutation(trpc.trash.restore.mutationOptions({ onSettled: refresh }));
  const deleteNow = useMutation(trpc.trash.deleteNow.mutationOptions({ onSettled: refresh }));
  const [confirming, setConfirming] = useState<{ id: string; title: string } | null>(null);
  const [message, setMessage] = useState<{ error?: string; success?: string; restoredId?: string }>({});

  async function restoreOne(id: string, title: string) {
    setMessage({});
    try {
      await restore.mutateAsync({ id });
      setMessage({ success: `Restored “${title}”.`, restoredId: id });
    } catch (failure) {
      setMessage({ error: `Could not restore “${title}”: ${(failure as Error).message}` });
    }
  }

  async function deleteOne(id: string, title: string) {
    setMessage({});
    try {
      await deleteNow.mutateAsync({ id });
      setMessage({ success: `Deleted “${title}” for good.` });
    } catch (failure) {
      setMessage({ error: `Could not delete “${title}”: ${(failure as Error).message}` });
    }
  }

  if (list.isError) return <p role="alert" className="text-sm text-red-700 dark:text-red-400">Could not load the Trash: {list.error.message}</p>;
  if (list.isPending) return <p className="text-sm text-neutral-500">Loading…</p>;
  const rows = list.data;
  return (
    <div className="space-y-3">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Retention moves sessions here (see{' '}
        <Link href="/settings#retention-title" className="underline">
          Settings → Retention
        </Link>
        ). They are out of the list and search, kept {TRASH_KEEP_DAYS} days while deletion is on, then deleted for good.
      </p>
      <FormMessage error={message.error} success={message.success} />
      {message.restoredId ? (
        // A full load, not a client transition: the router may hold the page it fetched while the
        // session was in the Trash (a 404), and a Link to it did nothing in the e2e runs.
        <a href={`/sessions/${message.restoredId}`} className="text-sm text-blue-700 underline dark:text-blue-400">
          Open the restored session
        </a>
      ) : null}
      {rows.length === 0 ? (
        <p className="text-sm text-neutral-600 dark:text-neutral-400">The Trash is empty.</p>
      ) : (
        <ul aria-label="Trashed sessions" className="divide-y divide-neutral-200 rounded-md border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {rows.map((row) => {
            const title = row.title || 'Untitled session';
            return (
              <li key={row.id} aria-label={title} className="flex flex-wrap items-center gap-3 px-3 py-2.5">
                <div className="min-w-0 flex-1 text-sm">
                  <p className="truncate font-medium text-neutral-900 dark:text-neutral-100">{title}</p>
                  <p className="text-xs text-neutral-600 dark:text-neutral-400">
                    Moved here <LocalTime ms={row.trashedAt} />
                    {' · '}
                    {row.purgeAt === null ? 'kept: deletion is off' : <>deleted for good <LocalTime ms={row.purgeAt} /></>}
                  </p>
                </div>
                <Button variant="secondary" disabled={restore.isPending} onClick={() => void restoreOne(row.id, title)}>
                  Restore
                </Button>
                <Button variant="danger" disabled={deleteNow.isPending} onClick={() => setConfirming({ id: row.id, title })}>
                  Delete now
                </Button>
              </li>
            );
          })}
        </ul>
      )}
      <ConfirmDialog
        open={confirming !== null}
        onOpenChange={(open) => {
          if (!open) setConfirming(null);
        }}
        title="Delete for good?"
        description={confirming ? `“${confirming.title}” and every branch, message and attachment of it are removed. This cannot be undone.` : ''}
        confirmLabel="Delete for good"
        onConfirm={() => {
          if (confirming) void deleteOne(confirming.id, confirming.title);
          setConfirming(null);
        }}
      />
    </div>
  );
}
