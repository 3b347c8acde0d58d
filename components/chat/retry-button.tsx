'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RotateCcw } from 'lucide-react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { useRetryLabel } from './retry-label';

/**
 * Retry on an assistant message: a new reply beside it (chat.retry = branch.retry, then the
 * model; or, for a recorded agent's reply, its kept request through its upstream); the old one
 * stays as a sibling branch. In an agent's session it says who answers.
 */
export function RetryButton({
  sessionId,
  assistantId,
  through = null,
  disabled = false,
}: {
  sessionId: string;
  assistantId: string;
  /** the upstream and model of a recorded reply whose request was kept (server/proxy/kept-upstream.ts) */
  through?: { upstream: string; model: string } | null;
  disabled?: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const takeover = useRetryLabel(sessionId, through);
  const viaUpstream = takeover?.startsWith('Retry ') === true;
  const retry = useMutation(
    trpc.chat.retry.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.message.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.session.get.queryKey({ id: sessionId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.chat.state.queryKey({ sessionId }) });
      },
      onError: (error) => toast.error(error.message),
    }),
  );
  return (
    <button
      type="button"
      aria-label={takeover ?? 'Retry'}
      title={
        viaUpstream ? `${takeover}: the agent's request sent again, a new reply beside this one` : takeover ? `${takeover}: a new reply beside this one, from the web chat's model, not the agent` : 'Retry: a new reply beside this one'
      }
      disabled={disabled || retry.isPending}
      onClick={() => retry.mutate({ sessionId, assistantId })}
      className="inline-flex items-center gap-1 rounded-md px-2 py-1 text-xs text-neutral-600 hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:opacity-50 dark:text-neutral-400 dark:hover:bg-neutral-800"
    >
      <RotateCcw size={16} aria-hidden />
      {takeover ?? 'Retry'}
    </button>
  );
}
