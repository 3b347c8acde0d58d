'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Bookmark } from 'lucide-react';
import { toast } from 'sonner';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { cn } from '@/components/ui/cn';
import { useTRPC } from '@/trpc/client';

/**
 * "Bookmark" on a message (DESIGN §16), pressed while it is bookmarked; one bookmark.list query per
 * session serves every message's button. Live from bookmark_changed in every tab of the user.
 */
export function BookmarkButton({ sessionId, messageId }: { sessionId: string; messageId: string }) {
  const trpc = useTRPC();
  const client = useQueryClient();
  const list = useQuery({ ...trpc.bookmark.list.queryOptions({ sessionId }), staleTime: 60_000 });
  const pressed = list.data?.some((each) => each.messageId === messageId) ?? false;
  // every bookmark.list (this session's and the Bookmarks page's) is stale after a change
  const refresh = () => void client.invalidateQueries({ queryKey: trpc.bookmark.list.pathKey() });
  const add = useMutation(trpc.bookmark.add.mutationOptions({ onSuccess: refresh, onError: (error) => toast.error(`Could not bookmark: ${error.message}`) }));
  const remove = useMutation(trpc.bookmark.remove.mutationOptions({ onSuccess: refresh, onError: (error) => toast.error(`Could not remove the bookmark: ${error.message}`) }));
  useLiveEvents((event) => {
    if (event.type === 'bookmark_changed' && event.data.sessionId === sessionId) refresh();
    else if (event.type === 'resync') refresh();
  });
  const busy = list.isPending || add.isPending || remove.isPending;
  return (
    <button
      type="button"
      aria-pressed={pressed}
      disabled={busy}
      title={pressed ? 'Remove the bookmark' : 'Bookmark this message'}
      onClick={() => (pressed ? remove.mutate({ sessionId, messageId }) : add.mutate({ sessionId, messageId }))}
      className={cn(
        'inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs hover:bg-neutral-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 disabled:opacity-60 dark:hover:bg-neutral-800',
        pressed ? 'text-blue-700 dark:text-blue-400' : 'text-neutral-500 hover:text-neutral-900 dark:text-neutral-400 dark:hover:text-neutral-100',
      )}
    >
      <Bookmark size={14} aria-hidden fill={pressed ? 'currentColor' : 'none'} />
      Bookmark
    </button>
  );
}
