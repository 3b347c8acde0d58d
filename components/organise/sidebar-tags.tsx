'use client';

import { useQueryClient } from '@tanstack/react-query';
import { Tag } from 'lucide-react';
import Link from 'next/link';
import { useRef } from 'react';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { cn } from '@/components/ui/cn';
import { useTRPC } from '@/trpc/client';
import { CHIP } from './tag-look';
import { useTags } from './use-tags';

/** Fetched again this long after the last change that may move a count (a bulk edit is one fetch). */
const RECOUNT_DELAY_MS = 300;

/** The sidebar's tags with their counts, each opening the Chats page filtered by it; live from the event stream. */
export function SidebarTags() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const { tags } = useTags();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useLiveEvents((event) => {
    const moves =
      event.type === 'session_created' ||
      event.type === 'session_deleted' ||
      event.type === 'resync' ||
      (event.type === 'session_updated' && ('tags' in event.data || 'archived' in event.data));
    if (!moves) return;
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => void client.invalidateQueries({ queryKey: trpc.tag.list.queryKey() }), RECOUNT_DELAY_MS);
  });
  if (tags.length === 0) return null;
  return (
    <section aria-label="Tags" className="max-h-40 shrink-0 overflow-y-auto px-2 pb-2">
      <h2 className="px-2 pb-1 text-xs font-medium text-neutral-500 dark:text-neutral-400">Tags</h2>
      <ul className="space-y-0.5">
        {tags.map((tag) => (
          <li key={tag.name}>
            <Link
              href={`/chats?tag=${encodeURIComponent(tag.name)}`}
              aria-label={`${tag.name}, ${tag.sessions} ${tag.sessions === 1 ? 'session' : 'sessions'}`}
              className="flex items-center gap-2 rounded-md px-2 py-1 text-sm hover:bg-neutral-200/70 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800"
            >
              <Tag size={14} aria-hidden className="shrink-0 text-neutral-500" />
              <span className={cn('truncate rounded px-1.5 text-xs', CHIP[tag.colour])}>{tag.name}</span>
              <span data-count className="ml-auto text-xs text-neutral-500 dark:text-neutral-400">
                {tag.sessions}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
