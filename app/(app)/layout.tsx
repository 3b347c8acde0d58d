import type { ReactNode } from 'react';
import { LiveEventsProvider } from '@/components/live/live-events-provider';
import { AppHeader } from '@/components/shell/app-header';
import { getEventHub } from '@/server/runtime';
import { requireUser } from '@/trpc/server';

/** Every signed-in page. The cookie is checked in full here (user enabled, session version current). */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    // The stream starts where this render stands, so what happens before it opens is replayed.
    <LiveEventsProvider since={getEventHub().currentId(user.id)}>
      <AppHeader email={user.email} admin={user.admin} />
      <main className="mx-auto max-w-5xl px-4 py-8">{children}</main>
    </LiveEventsProvider>
  );
}
