import Link from 'next/link';
import { History } from 'lucide-react';
import { AtTurnMessage } from '@/components/timeline/at-turn-message';
import { LocalTime } from '@/components/session/local-time';
import { shortSha } from '@/components/timeline/format-time';
import { getServerCaller, requireUser } from '@/trpc/server';
import { orNotFound } from '../../timeline/or-not-found';

export const metadata = { title: 'As of a turn · Entity Memory' };

const nav =
  'rounded-md border border-neutral-300 px-3 py-1.5 text-sm hover:bg-neutral-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-700 dark:hover:bg-neutral-800';

/** The session exactly as one turn commit holds it, read from git, read-only (DESIGN §7). */
export default async function AtTurnPage({ params }: { params: Promise<{ id: string; sha: string }> }) {
  await requireUser();
  const { id: sessionId, sha } = await params;
  const api = await getServerCaller();
  const session = await orNotFound(api.session.get({ id: sessionId }));
  const at = await orNotFound(api.timeline.at({ sessionId, sha }));
  const base = `/sessions/${encodeURIComponent(sessionId)}`;
  const title = session.title || session.preview || 'Untitled';
  return (
    <div className="mx-auto max-w-3xl space-y-4 px-4 py-6">
      <h1 className="text-2xl font-semibold break-words">{title}</h1>
      <div role="note" aria-label="Read-only view" className="flex items-start gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200">
        <History size={16} aria-hidden="true" className="mt-0.5 shrink-0" />
        <p>
          You are looking at this conversation as it was at turn {at.turn} (
          <LocalTime ms={at.createdAt} />, commit <code>{shortSha(at.sha)}</code>), read from its history.
          It is read-only: later messages and branches are not shown.
        </p>
      </div>
      <nav aria-label="Turns" className="flex flex-wrap items-center gap-2">
        {at.previous ? (
          <Link href={`${base}/at/${at.previous.sha}`} className={nav}>
            Previous turn
          </Link>
        ) : null}
        {at.next ? (
          <Link href={`${base}/at/${at.next.sha}`} className={nav}>
            Next turn
          </Link>
        ) : null}
        <Link href={base} className={nav}>
          Back to now
        </Link>
        <Link href={`${base}/timeline#turn-${at.turn}`} className="ml-auto text-sm text-blue-600 hover:underline dark:text-blue-400">
          Timeline
        </Link>
      </nav>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">{at.message}</p>
      {at.messages.length === 0 ? (
        <p className="text-sm text-neutral-600 dark:text-neutral-400">The conversation had no messages yet.</p>
      ) : (
        <div className="space-y-3">
          {at.messages.map((message) => (
            <AtTurnMessage key={message.id} message={message} />
          ))}
        </div>
      )}
    </div>
  );
}
