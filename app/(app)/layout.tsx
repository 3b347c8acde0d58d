import type { ReactNode } from 'react';
import { LiveEventsProvider } from '@/components/live/live-events-provider';
import { AppHeader } from '@/components/shell/app-header';
import { requireUser } from '@/trpc/server';

/** Every signed-in page. The cookie is checked in full here (user enabled, session version current). */
export default async function AppLayout({ children }: { children: ReactNode }) {
  const user = await requireUser();
  return (
    <LiveEventsProvider>
      <AppHeader email={user.email} admin={user.admin} />
      <main className="mx-auto max-w-5xl px-4 py-8">{children}</main>
    </LiveEventsProvider>
  );
}
