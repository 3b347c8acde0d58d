import { Eye } from 'lucide-react';
import { cookies } from 'next/headers';
import { ClockProvider } from '@/components/sessions/clock-provider';
import { isValidTimeZone, TIME_ZONE_COOKIE } from '@/components/sessions/day-groups';
import { LocalTime } from '@/components/session/local-time';
import type { SharedView } from '@/server/share/share-view';
import { SharedMessageList } from './shared-message-list';
import { sharedPageOr } from './shared-messages';

export const dynamic = 'force-dynamic';
export const metadata = { title: 'Shared conversation · Entity Memory', robots: { index: false, follow: false } };

function About({ view }: { view: SharedView }) {
  const at = view.at !== null ? <LocalTime ms={view.at} /> : null;
  return (
    <p>
      {view.scope === 'turn' ? (
        <>One turn of a conversation (turn {view.turn}, {at}), read-only.</>
      ) : view.scope === 'live' ? (
        view.turn === null ? (
          <>A read-only conversation that shows its turns as they are finished. None is finished yet.</>
        ) : (
          <>A read-only conversation, up to its newest finished turn (turn {view.turn}, {at}).</>
        )
      ) : (
        <>A read-only copy of a conversation as it was at turn {view.turn} ({at}). Later messages are not shown.</>
      )}
      {view.expiresAt !== null ? (
        <>
          {' '}
          This link expires <LocalTime ms={view.expiresAt} />.
        </>
      ) : null}
    </p>
  );
}

/**
 * `/s/<id>`: a read-only shared session (DESIGN §13). Outside the signed-in shell: no sidebar,
 * nothing of the owner. Paged as the session page is (its newest page first, older ones on
 * scroll), Markdown through the same sanitising renderer, rendered as the user who made the link
 * (their share of the render pool); attachments only through the link.
 */
export default async function SharedSessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const { view, messages } = await sharedPageOr(id);
  const zone = (await cookies()).get(TIME_ZONE_COOKIE)?.value;
  return (
    <ClockProvider initialTimeZone={zone && isValidTimeZone(zone) ? zone : 'UTC'} initialNow={Date.now()}>
      <header className="border-b border-neutral-200 dark:border-neutral-800">
        <div className="mx-auto flex max-w-3xl items-center gap-2 px-4 py-3 text-sm">
          <span className="font-semibold">Entity Memory</span>
          <span className="inline-flex items-center gap-1 rounded-full border border-neutral-300 px-2 py-0.5 text-xs text-neutral-600 dark:border-neutral-700 dark:text-neutral-400">
            <Eye size={12} aria-hidden />
            Shared, read-only
          </span>
        </div>
      </header>
      <main className="mx-auto max-w-3xl space-y-4 px-4 py-6">
        <h1 className="text-2xl font-semibold break-words">{view.title}</h1>
        <div role="note" aria-label="About this shared conversation" className="rounded-md border border-neutral-200 bg-neutral-50 p-3 text-sm text-neutral-700 dark:border-neutral-800 dark:bg-neutral-900 dark:text-neutral-300">
          <About view={view} />
        </div>
        {messages.length === 0 ? (
          <p className="text-sm text-neutral-600 dark:text-neutral-400">There are no messages to show yet.</p>
        ) : (
          <SharedMessageList link={id} initial={messages} />
        )}
      </main>
    </ClockProvider>
  );
}
