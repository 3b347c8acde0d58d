'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Filter, X } from 'lucide-react';
import Link from 'next/link';
import { useRef } from 'react';
import { toast } from 'sonner';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { useTRPC } from '@/trpc/client';
import { viewHref } from './saved-view-filter';

/** Counted again this long after the last change that may move a count (a bulk edit is one fetch). */
const RECOUNT_DELAY_MS = 300;

/**
 * The sidebar's "Views" (DESIGN §16): the user's saved Chats filters, each with how many sessions
 * it matches now, opening the Chats page with that filter; deleted from here. Counts follow every
 * session change live (the server counts, it never lists).
 */
export function SidebarViews() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const views = useQuery({ ...trpc.view.list.queryOptions(), staleTime: 30_000 });
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const recount = () => void client.invalidateQueries({ queryKey: trpc.view.list.queryKey() });
  const remove = useMutation(trpc.view.delete.mutationOptions({ onSuccess: recount, onError: (error) => toast.error(`Could not delete the view: ${error.message}`) }));
  useLiveEvents((event) => {
    if (event.type === 'view_changed' || event.type === 'resync') return recount();
    const moves = event.type === 'session_created' || event.type === 'session_deleted' || event.type === 'session_updated';
    if (!moves) return;
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(recount, RECOUNT_DELAY_MS);
  });
  const list = views.data ?? [];
  if (list.length === 0) return null;
  return (
    <section aria-label="Views" className="max-h-40 shrink-0 overflow-y-auto px-2 pb-2">
      <h2 className="px-2 pb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400">Views</h2>
      <ul className="space-y-0.5">
        {list.map((view) => (
          <li key={view.name} className="group flex items-center rounded-md hover:bg-neutral-200/70 dark:hover:bg-neutral-800">
            <Link
              href={viewHref(view.filter)}
              aria-label={`${view.name}, ${view.sessions} ${view.sessions === 1 ? 'session' : 'sessions'}`}
              className="flex min-w-0 flex-1 items-center gap-2 rounded-md px-2 py-1 text-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
            >
              <Filter size={14} aria-hidden className="shrink-0 text-neutral-500" />
              <span className="truncate">{view.name}</span>
              <span data-count className="ml-auto text-xs text-neutral-500 dark:text-neutral-400">
                {view.sessions}
              </span>
            </Link>
            <button
              type="button"
              aria-label={`Delete view ${view.name}`}
              title="Delete view"
              disabled={remove.isPending}
              onClick={() => remove.mutate({ name: view.name })}
              className="mr-1 shrink-0 rounded p-0.5 text-neutral-500 opacity-60 hover:text-neutral-900 focus-visible:opacity-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 group-hover:opacity-100 dark:hover:text-neutral-100"
            >
              <X size={14} aria-hidden />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
