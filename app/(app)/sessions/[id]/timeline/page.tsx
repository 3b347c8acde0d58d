import Link from 'next/link';
import { Suspense } from 'react';
import { TURNS_PER_PAGE } from '@/components/timeline/page-size';
import { TurnList } from '@/components/timeline/turn-list';
import { getServerCaller, requireUser } from '@/trpc/server';
import { BranchGraphSection } from './branch-graph-section';
import { orNotFound } from './or-not-found';
import { TitledSection } from '@/components/ui/titled-section';
import { writerLine } from '@/components/sessions/agent-label';

export const metadata = { title: 'Timeline · Entity Memory' };

/** DESIGN §7 "Timeline page": turn commits newest first with their project commits, and the branch graph. */
export default async function TimelinePage({ params }: { params: Promise<{ id: string }> }) {
  await requireUser();
  const { id } = await params;
  const sessionId = id;
  const api = await getServerCaller();
  const session = await orNotFound(api.session.get({ id: sessionId }));
  const firstPage = await api.timeline.list({ sessionId, limit: TURNS_PER_PAGE });
  const title = session.title || session.preview || 'Untitled';
  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-6">
      <header className="space-y-1">
        <p className="text-sm">
          <Link href={`/sessions/${encodeURIComponent(sessionId)}`} className="text-blue-600 hover:underline dark:text-blue-400">
            ← {title}
          </Link>
        </p>
        <h1 className="text-2xl font-semibold">Timeline</h1>
        <p className="text-sm text-neutral-600 dark:text-neutral-400">
          {/* An agent's turns are its exchanges (each tool round-trip is one): the prompts say how much was asked. */}
          {firstPage.prompts === 1 ? '1 prompt' : `${firstPage.prompts} prompts`} in {session.turnCount === 1 ? '1 turn' : `${session.turnCount} turns`}
          {writerLine(session) ? ` · written by ${writerLine(session)}` : ''}
          {session.project ? <> · project {session.projectId === 'default' ? session.project : <Link href={`/projects/${encodeURIComponent(session.projectId)}`} className="text-blue-600 hover:underline dark:text-blue-400">{session.project}</Link>}</> : null}
        </p>
      </header>
      <TitledSection id="graph-title" title="Branches">
        <Suspense fallback={<p className="text-sm text-neutral-500">Laying out the branch graph…</p>}>
          <BranchGraphSection sessionId={sessionId} />
        </Suspense>
      </TitledSection>
      <TitledSection id="turns-title" title="Turns">
        <TurnList sessionId={sessionId} firstPage={firstPage} />
      </TitledSection>
    </div>
  );
}
