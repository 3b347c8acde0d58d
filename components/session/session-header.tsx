'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { FolderGit2, History } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { toast } from 'sonner';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { useTRPC } from '@/trpc/client';
import { displayTitle } from './display-title';
import { ExportMenu } from './export-menu';
import { StatusBadge } from './status-badge';
import type { SessionDetail } from './types';

const CHIP =
  'inline-flex items-center gap-1.5 rounded-md border border-neutral-200 px-2 py-1 text-sm text-neutral-700 hover:bg-neutral-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-800 dark:text-neutral-300 dark:hover:bg-neutral-900';

/**
 * Title (level 1), status, project chip, the Timeline link and the Export menu. It reads `session.get` from the
 * cache the server filled, and live `session_updated` events patch it (a rename shows at once).
 */
export function SessionHeader({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = trpc.session.get.queryOptions({ id: sessionId });
  const { data: session } = useQuery(options);
  const router = useRouter();

  useLiveEvents((event) => {
    if (event.type === 'session_updated' && event.data.id === sessionId) {
      queryClient.setQueryData(options.queryKey, (old: SessionDetail | undefined) => (old ? { ...old, ...event.data } : old));
    } else if (event.type === 'session_deleted' && event.data.id === sessionId) {
      // Deleted elsewhere (another tab, the CLI, an agent): nothing is left to show here.
      toast.info('This session was deleted.');
      router.replace('/');
    } else if (event.type === 'resync') {
      void queryClient.invalidateQueries({ queryKey: options.queryKey });
    }
  });

  if (!session) return null;
  return (
    <header className="mb-6 border-b border-neutral-200 pb-4 dark:border-neutral-800">
      <div className="flex flex-wrap items-start gap-x-3 gap-y-2">
        <h1 className="min-w-0 flex-1 text-2xl font-semibold break-words">{displayTitle(session)}</h1>
        <StatusBadge status={session.status} />
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-2">
        <Link href={`/projects/${encodeURIComponent(session.projectId)}`} className={CHIP}>
          <FolderGit2 aria-hidden size={16} />
          {session.project}
        </Link>
        <Link href={`/sessions/${encodeURIComponent(sessionId)}/timeline`} className={CHIP}>
          <History aria-hidden size={16} />
          Timeline
        </Link>
        <ExportMenu sessionId={sessionId} className={CHIP} />
        {session.archived ? <span className="text-xs text-neutral-500">Archived</span> : null}
      </div>
    </header>
  );
}
