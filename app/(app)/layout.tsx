import { dehydrate, HydrationBoundary } from '@tanstack/react-query';
import { cookies } from 'next/headers';
import type { ReactNode } from 'react';
import { SignedInUserProvider } from '@/components/auth/signed-in-user';
import { LiveEventsProvider } from '@/components/live/live-events-provider';
import { SessionCacheSync } from '@/components/live/session-cache-sync';
import { ClockProvider } from '@/components/sessions/clock-provider';
import { isValidTimeZone, TIME_ZONE_COOKIE } from '@/components/sessions/day-groups';
import { SIDEBAR_PINNED, SIDEBAR_RECENT } from '@/components/sessions/list-inputs';
import { AppShell } from '@/components/shell/app-shell';
import { getEventHub } from '@/server/runtime';
import { makeQueryClient } from '@/trpc/query-client';
import { requireUser, trpc } from '@/trpc/server';

const nextPage = (page: { nextCursor: string | null }) => page.nextCursor;

/**
 * Every signed-in page. The cookie is checked in full here (user enabled, session version current).
 * The sidebar's first pages are prefetched into a query client of the layout's own: the page's
 * HydrateClient dehydrates the request's shared client, which would send these rows a second time.
 */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  // Read before the data: the stream starts here, so what happens before it opens is replayed.
  const since = getEventHub().currentId(user.id);
  const sidebar = makeQueryClient();
  await Promise.all([
    sidebar.prefetchInfiniteQuery(trpc.session.list.infiniteQueryOptions(SIDEBAR_PINNED, { getNextPageParam: nextPage })),
    sidebar.prefetchInfiniteQuery(trpc.session.list.infiniteQueryOptions(SIDEBAR_RECENT, { getNextPageParam: nextPage })),
  ]);
  const zone = (await cookies()).get(TIME_ZONE_COOKIE)?.value;
  const timeZone = zone && isValidTimeZone(zone) ? zone : 'UTC';
  return (
    <LiveEventsProvider since={since}>
      <SessionCacheSync />
      <HydrationBoundary state={dehydrate(sidebar)}>
        <ClockProvider initialTimeZone={timeZone} initialNow={Date.now()}>
          <SignedInUserProvider userId={user.id}>
            <AppShell email={user.email} admin={user.admin}>
              {children}
            </AppShell>
          </SignedInUserProvider>
        </ClockProvider>
      </HydrationBoundary>
    </LiveEventsProvider>
  );
}
