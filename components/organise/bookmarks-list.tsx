'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Bookmark, X } from 'lucide-react';
import Link from 'next/link';
import { toast } from 'sonner';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { hitHref } from '@/components/search/types';
import { LocalTime } from '@/components/session/local-time';
import { displayTitle } from '@/components/sessions/display-title';
import { useTRPC } from '@/trpc/client';

const ROLE: Record<string, string> = { user: 'You', assistant: 'Reply' };

/**
 * The Bookmarks page's list (DESIGN §16): newest first, each with its session's title and the
 * message's first words, opening the session at that message. A bookmark whose session went is
 * shown as gone (its words are not kept), with its Remove button. Live from bookmark_changed.
 */
export function BookmarksList() {
  const trpc = useTRPC();
  const client = useQueryClient();
  const list = useQuery(trpc.bookmark.list.queryOptions({}));
  const refresh = () => void client.invalidateQueries({ queryKey: trpc.bookmark.list.pathKey() });
  const remove = useMutation(trpc.bookmark.remove.mutationOptions({ onSuccess: refresh, onError: (error) => toast.error(`Could not remove the bookmark: ${error.message}`) }));
  useLiveEvents((event) => {
    // a renamed session's title, or a bookmark made or removed in another tab
    if (event.type === 'bookmark_changed' || event.type === 'resync' || (event.type === 'session_updated' && 'title' in event.data)) refresh();
  });

  if (list.isError) return <p role="alert" className="text-sm text-red-700 dark:text-red-400">Could not load the bookmarks: {list.error.message}</p>;
  const bookmarks = list.data ?? [];
  if (list.isPending) return <p className="text-sm text-neutral-500">Loading…</p>;
  if (bookmarks.length === 0) {
    return (
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        No bookmarks yet. Press <Bookmark size={14} aria-label="Bookmark" className="inline align-text-bottom" /> under a message to keep it here.
      </p>
    );
  }
  return (
    <ul aria-label="Bookmarked messages" className="divide-y divide-neutral-200 rounded-md border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
      {bookmarks.map((bookmark) => {
        const title = bookmark.gone ? 'Deleted session' : displayTitle({ title: bookmark.title ?? '', preview: bookmark.preview, channel: bookmark.channel });
        return (
          <li key={`${bookmark.sessionId}:${bookmark.messageId}`} className="flex items-start gap-2 px-3 py-2.5">
            {bookmark.gone ? (
              <div className="min-w-0 flex-1 text-sm text-neutral-500 dark:text-neutral-400">
                <span className="font-medium">{title}</span>: this message is gone.
              </div>
            ) : (
              <Link
                href={hitHref(bookmark)}
                className="min-w-0 flex-1 rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600"
              >
                <span className="flex items-baseline gap-2 text-sm">
                  <span className="truncate font-medium text-neutral-900 hover:underline dark:text-neutral-100">{title}</span>
                  <LocalTime ms={bookmark.createdAt} className="ml-auto shrink-0 text-xs text-neutral-500 dark:text-neutral-400" />
                </span>
                <span className="mt-0.5 line-clamp-2 text-sm text-neutral-700 dark:text-neutral-300">
                  <span className="mr-1 text-xs font-medium uppercase tracking-wide text-neutral-500">{ROLE[bookmark.role] ?? bookmark.role}</span>
                  {bookmark.snippet || '(no text)'}
                </span>
              </Link>
            )}
            <button
              type="button"
              aria-label={`Remove bookmark: ${title}`}
              title="Remove bookmark"
              disabled={remove.isPending}
              onClick={() => remove.mutate({ sessionId: bookmark.sessionId, messageId: bookmark.messageId })}
              className="shrink-0 rounded p-1 text-neutral-500 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:hover:bg-neutral-800 dark:hover:text-neutral-100"
            >
              <X size={16} aria-hidden />
            </button>
          </li>
        );
      })}
    </ul>
  );
}
