'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { toast } from 'sonner';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { useTRPC } from '@/trpc/client';
import { SessionModelSelect, SystemPromptButton } from './chat-settings-controls';
import { Composer } from './composer';
import { isWebChat, NoModelNotice } from './no-model-notice';
import { ProjectChipReadOnly, ProjectPicker } from './project-chip';
import { TurnStatus } from './turn-status';
import { AgentFolderOffer } from '@/components/session/agent-folder-offer';
import { ForkNotice } from '@/components/session/fork-from-here';
import { useSendMessage } from './use-send-message';
import { useWebChatTakeover } from './web-chat-takeover';

/**
 * The composer of an open session (mounted by the session page, pinned below the messages and the
 * streaming reply): the turn's status, the message box with Send / Stop. The project chip is a picker until the first turn.
 */
export function SessionComposer({
  sessionId,
  since,
}: {
  sessionId: string;
  /** the event id the page was rendered at: a turn that ended after it (a fast failure, a client-side navigation) still reaches the status */
  since?: string;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Both come from the server's render (the page fills the cache); what changed after it is replayed from `since`.
  const session = useQuery(trpc.session.get.queryOptions({ id: sessionId }));
  const state = useQuery(trpc.chat.state.queryOptions({ sessionId }));
  const { sendDraft, pending, composer } = useSendMessage(sessionId);
  const takeover = useWebChatTakeover(sessionId);
  const [error, setError] = useState<string | null>(null);
  const cancel = useMutation(trpc.chat.cancel.mutationOptions());
  const resume = useMutation(trpc.chat.resume.mutationOptions());
  const setProject = useMutation(trpc.project.setForSession.mutationOptions());

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.session.get.queryKey({ id: sessionId }) });
    void queryClient.invalidateQueries({ queryKey: trpc.chat.state.queryKey({ sessionId }) });
  };
  useLiveEvents(
    (event) => {
      if (event.type === 'session_updated' && event.data.id === sessionId && (event.data.status !== undefined || event.data.project !== undefined)) refresh();
      else if (event.type === 'chat_error' && event.data.sessionId === sessionId) {
        setError(event.data.message);
        refresh();
      } else if (event.type === 'chat_done' && event.data.sessionId === sessionId) refresh();
      else if (event.type === 'resync') refresh();
    },
    { since },
  );

  const detail = session.data;
  const running = detail?.status === 'running' || state.data?.running === true || pending;
  const lastError = error ?? state.data?.lastError ?? null;

  async function onSend() {
    setError(null);
    try {
      await sendDraft({ sessionId });
      refresh();
    } catch (failure) {
      toast.error((failure as Error).message);
    }
  }

  function onRetry() {
    setError(null);
    resume.mutate({ sessionId }, { onSettled: refresh, onError: (failure) => toast.error(failure.message) });
  }

  async function onProject(projectId: string) {
    try {
      await setProject.mutateAsync({ sessionId, projectId });
      refresh();
    } catch (failure) {
      toast.error((failure as Error).message);
    }
  }

  const chip =
    detail && detail.turnCount === 0 && !running ? (
      <ProjectPicker projectId={detail.projectId} onChange={(id) => void onProject(id)} />
    ) : (
      <ProjectChipReadOnly name={detail?.project ?? '…'} inHome={detail?.projectId === 'default'} />
    );

  return (
    <div className="space-y-3">
      <TurnStatus status={detail?.status ?? 'idle'} running={running} error={lastError} interruption={detail?.interruption ?? null} onRetry={onRetry} retrying={resume.isPending} retryLabel={takeover ?? 'Retry'} />
      {/* An agent's recorded session is read here, not chatted in: no banner about chat there. */}
      {detail && isWebChat(detail) ? <NoModelNotice /> : null}
      {detail?.agentFolder ? <AgentFolderOffer sessionId={sessionId} folder={detail.agentFolder} /> : null}
      {detail?.fork ? <ForkNotice fork={detail.fork} /> : null}
      <Composer
        {...composer}
        onSend={() => void onSend()}
        onStop={() =>
          cancel.mutate(
            { sessionId },
            {
              onSettled: refresh,
              onSuccess: (result) => {
                if (!result.cancelled) toast.info('Nothing was running: the turn had already ended.');
              },
              onError: (failure) => toast.error(failure.message),
            },
          )
        }
        running={running}
        sending={pending}
        projectChip={
          <>
            {chip}
            <SessionModelSelect sessionId={sessionId} disabled={running} />
            <SystemPromptButton sessionId={sessionId} />
          </>
        }
      />
    </div>
  );
}
