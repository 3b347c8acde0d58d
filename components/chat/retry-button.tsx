'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { RotateCcw } from 'lucide-react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { useWebChatTakeover } from './web-chat-takeover';

/**
 * Retry on an assistant message: a new reply beside it (chat.retry = branch.retry, then the
 * model); the old one stays as a sibling branch. In an agent's session it says who answers.
 */
export function RetryButton({ sessionId, assistantId, disabled = false }: { sessionId: string; assistantId: string; disabled?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const takeover = useWebChatTakeover(sessionId);
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
      title={takeover ? `${takeover}: a new reply beside this one, from the web chat's model, not the agent` : 'Retry: a new reply beside this one'}
      disabled={disabled || retry.isPending}
      onClick={() => retry.mutate({ sessionId, assistantId })}
      className="inline-flex items-center gap-1 rounded-md px-2 py-1 text-xs text-neutral-600 hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:opacity-50 dark:text-neutral-400 dark:hover:bg-neutral-800"
    >
      <RotateCcw size={16} aria-hidden />
      {takeover ?? 'Retry'}
    </button>
  );
}
