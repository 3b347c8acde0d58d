'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Bot, FolderGit2, History } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import { toast } from 'sonner';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { agentLabel, wayInLabel } from '@/components/sessions/agent-label';
import { MachineName } from '@/components/sessions/machine-name';
import { SessionListContext, type SessionListControls } from '@/components/sessions/session-list-context';
import { SessionMenu } from '@/components/sessions/session-menu';
import { HeaderTags } from '@/components/organise/header-tags';
import { SessionTitleField } from '@/components/sessions/session-title-field';
import { rowOf } from '@/components/sessions/session-types';
import { useSessionActions } from '@/components/sessions/use-session-actions';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { useTRPC } from '@/trpc/client';
import { displayTitle } from './display-title';
import { ExportMenu } from './export-menu';
import { ResumeInAgent } from './resume-in-agent';
import { StatusBadge } from './status-badge';
import { SessionUsage } from './session-usage';
import type { SessionDetail } from './types';

const CHIP =
  'inline-flex items-center gap-1.5 rounded-md border border-neutral-200 px-2 py-1 text-sm text-neutral-700 hover:bg-neutral-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:border-neutral-800 dark:text-neutral-300 dark:hover:bg-neutral-900';

/**
 * Title (level 1, also the tab's), status, the session's menu (the rows' one: rename, pin,
 * archive, delete…), project chip, the Timeline link, the Export menu and the agent that wrote it. It reads `session.get` from the cache
 * the server filled, and live `session_updated` events patch it (a rename shows at once).
 */
export function SessionHeader({ sessionId }: { sessionId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const options = trpc.session.get.queryOptions({ id: sessionId });
  const { data: session } = useQuery(options);
  const router = useRouter();
  const actions = useSessionActions();
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const header = useRef<HTMLElement>(null);
  const title = session ? displayTitle(session) : null;

  useEffect(() => {
    if (title !== null) document.title = `${title} · Entity Memory`;
  }, [title]);

  const controls = useMemo<SessionListControls>(
    () => ({
      actions,
      renamingId: renaming ? sessionId : null,
      // After the menu has closed: while open it keeps the focus inside itself.
      startRename: () => setTimeout(() => setRenaming(true), 0),
      stopRename: (restoreFocus = false) => {
        setRenaming(false);
        if (restoreFocus) requestAnimationFrame(() => header.current?.querySelector<HTMLElement>('button[aria-haspopup="menu"]')?.focus());
      },
      requestDelete: () => setDeleting(true),
    }),
    [actions, renaming, sessionId],
  );

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

  if (!session || title === null) return null;
  const row = rowOf(session);
  return (
    <SessionListContext.Provider value={controls}>
      <header ref={header} className="mb-6 border-b border-neutral-200 pb-4 dark:border-neutral-800">
        <div className="flex flex-wrap items-start gap-x-3 gap-y-2">
          {renaming ? (
            <SessionTitleField
              initial={session.title || title}
              className="py-1.5 text-xl font-semibold"
              onSave={(next, byKey) => {
                controls.stopRename(byKey);
                void actions.rename(row, next);
              }}
              onCancel={controls.stopRename}
            />
          ) : (
            <h1 className="min-w-0 flex-1 text-2xl font-semibold break-words">{title}</h1>
          )}
          <StatusBadge status={session.status} />
          <SessionMenu
            row={row}
            title={title}
            kind="button"
            label="Session options"
            triggerClassName="rounded-md p-1.5 text-neutral-600 hover:bg-neutral-100 hover:text-neutral-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 data-[state=open]:bg-neutral-100 dark:text-neutral-400 dark:hover:bg-neutral-800 dark:hover:text-neutral-100 dark:data-[state=open]:bg-neutral-800"
          />
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
          <ResumeInAgent sessionId={sessionId} turnCount={session.turnCount} className={CHIP} />
          <HeaderTags row={row} title={title} chipClassName={CHIP} />
          {agentLabel(session) ? (
            <span className="inline-flex items-center gap-1.5 px-1 text-sm text-neutral-600 dark:text-neutral-400">
              <Bot aria-hidden size={16} />
              Written by {agentLabel(session)}
            </span>
          ) : null}
          {wayInLabel(session) ? <span className="text-xs text-neutral-500">{`Came in: ${wayInLabel(session)}`}</span> : null}
          <MachineName machine={session.machine} withIcon className="text-xs text-neutral-500" />
          <SessionUsage sessionId={sessionId} />
          {session.archived ? <span className="text-xs text-neutral-500">Archived</span> : null}
          {session.pinned ? <span className="text-xs text-neutral-500">Pinned</span> : null}
        </div>
      </header>
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title="Delete this session?"
        description={`“${title}” and its whole history will be deleted. You can undo it for a few seconds.`}
        confirmLabel="Delete"
        onConfirm={() => {
          setDeleting(false);
          router.push('/');
          actions.remove(row, () => router.push(`/sessions/${encodeURIComponent(sessionId)}`));
        }}
      />
    </SessionListContext.Provider>
  );
}
