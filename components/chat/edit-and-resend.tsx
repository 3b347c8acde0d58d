'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Pencil } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { useWebChatTakeover } from './web-chat-takeover';

export interface EditAndResendProps {
  sessionId: string;
  /** the user message being edited */
  messageId: string;
  /** its parent (message.parentId): the edited copy goes beside it, on a new branch */
  parentId: string | null;
  content: string;
  disabled?: boolean;
}

/** Edit a user message and send it again: a new user message with the same parent, a new branch. */
export function EditAndResend({ sessionId, messageId, parentId, content, disabled = false }: EditAndResendProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const takeover = useWebChatTakeover(sessionId);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(content);
  const send = useMutation(
    trpc.chat.send.mutationOptions({
      onSuccess: () => {
        setEditing(false);
        void queryClient.invalidateQueries({ queryKey: trpc.message.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.session.get.queryKey({ id: sessionId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.chat.state.queryKey({ sessionId }) });
      },
      onError: (error) => toast.error(error.message),
    }),
  );
  const small =
    'inline-flex items-center gap-1 rounded-md px-2 py-1 text-xs focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:opacity-50';

  if (!editing) {
    return (
      <button
        type="button"
        aria-label="Edit"
        title={takeover ? `Edit, then ${takeover.charAt(0).toLowerCase()}${takeover.slice(1)}` : undefined}
        data-message-id={messageId}
        disabled={disabled}
        onClick={() => {
          setText(content);
          setEditing(true);
        }}
        className={`${small} text-neutral-600 hover:bg-neutral-100 dark:text-neutral-400 dark:hover:bg-neutral-800`}
      >
        <Pencil size={16} aria-hidden />
        Edit
      </button>
    );
  }
  return (
    <form
      aria-label="Edit message"
      className="w-full space-y-2"
      onSubmit={(event) => {
        event.preventDefault();
        if (text.trim() !== '') send.mutate({ sessionId, content: text, parentId });
      }}
    >
      <textarea
        aria-label="Edited message"
        value={text}
        onChange={(event) => setText(event.target.value)}
        rows={3}
        className="block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900"
      />
      <div className="flex gap-2">
        <button type="submit" disabled={send.isPending || text.trim() === ''} className={`${small} bg-blue-600 text-white hover:bg-blue-700`}>
          {takeover ?? 'Send edit'}
        </button>
        <button type="button" onClick={() => setEditing(false)} className={`${small} border border-neutral-300 dark:border-neutral-700`}>
          Cancel
        </button>
      </div>
    </form>
  );
}
