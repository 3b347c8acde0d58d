'use client';

import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { Button } from '@/components/ui/button';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';
import { TURNS_PER_PAGE } from './page-size';
import { TurnEntry } from './turn-entry';

type Page = RouterOutputs['timeline']['list'];

/** How far a link to an old turn (#turn-N) may page back before giving up. */
const MAX_PAGES_FOR_ANCHOR = 100;

/** The turns newest first, paged by the server's cursor; live when a new turn is committed. */
export function TurnList({ sessionId, firstPage }: { sessionId: string; firstPage: Page }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = trpc.timeline.list.infiniteQueryOptions(
    { sessionId, limit: TURNS_PER_PAGE },
    { getNextPageParam: (page) => page.nextCursor, initialData: { pages: [firstPage], pageParams: [null] } },
  );
  const turns = useInfiniteQuery(options);
  const pages = turns.data?.pages ?? [firstPage];
  const all = pages.flatMap((page) => page.commits);
  const projectId = pages[0]?.projectId ?? firstPage.projectId;

  useLiveEvents((event) => {
    if ((event.type === 'turn_committed' && event.data.sessionId === sessionId) || event.type === 'resync') {
      void queryClient.invalidateQueries({ queryKey: options.queryKey });
    }
  });

  // A link from a project commit names a turn that may be older than the first page.
  const lowest = all[all.length - 1]?.turn ?? 0;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = turns;
  useEffect(() => {
    const match = /^#turn-(\d+)$/.exec(window.location.hash);
    if (!match) return;
    const wanted = Number(match[1]);
    const element = document.getElementById(`turn-${wanted}`);
    if (element) {
      element.scrollIntoView({ block: 'start' });
      return;
    }
    if (wanted < lowest && hasNextPage && !isFetchingNextPage && pages.length < MAX_PAGES_FOR_ANCHOR) void fetchNextPage();
  }, [lowest, hasNextPage, isFetchingNextPage, fetchNextPage, pages.length]);

  if (all.length === 0) {
    return <p className="text-sm text-neutral-600 dark:text-neutral-400">No turns yet: the first finished turn of this session appears here.</p>;
  }
  return (
    <div className="space-y-3">
      <ol className="space-y-3" aria-label="Turns">
        {all.map((turn) => (
          <li key={turn.sha}>
            <TurnEntry sessionId={sessionId} projectId={projectId} turn={turn} />
          </li>
        ))}
      </ol>
      {hasNextPage ? (
        <Button variant="secondary" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
          {isFetchingNextPage ? 'Loading…' : 'Load older turns'}
        </Button>
      ) : (
        <p className="text-xs text-neutral-500 dark:text-neutral-400">The session started here.</p>
      )}
    </div>
  );
}
