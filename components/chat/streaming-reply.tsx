'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useDeferredValue, useEffect, useRef, useState } from 'react';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { useTRPC } from '@/trpc/client';
import { useShownMessages } from './chat-view';
import { joinStream, type StreamPiece } from './join-stream';
import { MarkdownText } from './markdown-text';

/**
 * The reply while it streams (chat_delta), rendered as Markdown as it grows. A tab that opens in
 * the middle starts from the text so far (chat.state, as the page rendered it) and joins the
 * deltas since that render (`since`) by their offset. It stays until the session's own message
 * list shows the reply's node (or the turn ends without one), so the page never jumps between them.
 */
export function StreamingReply({ sessionId, since }: { sessionId: string; since?: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const state = useQuery(trpc.chat.state.queryOptions({ sessionId }));
  const [reply, setReply] = useState<StreamPiece | null>(null);
  /** the reply's node was appended: the list is about to show it */
  const appended = useRef<string | null>(null);
  const shown = useShownMessages();
  const streaming = state.data?.streaming ?? null;

  useEffect(() => {
    if (streaming) setReply((current) => joinStream(current, { messageId: streaming.messageId, start: 0, text: streaming.text }));
  }, [streaming]);

  useLiveEvents(
    (event) => {
      if (event.type === 'chat_delta' && event.data.sessionId === sessionId) {
        const { messageId, delta } = event.data;
        const offset = event.data.offset ?? 0;
        setReply((current) => {
          const next = joinStream(current, { messageId, start: offset, text: delta });
          // The start is missing (this tab came in late): the server has the text so far.
          if (next.start > 0) void queryClient.invalidateQueries({ queryKey: trpc.chat.state.queryKey({ sessionId }) });
          return next;
        });
      } else if (event.type === 'message_appended' && event.data.sessionId === sessionId) {
        const id = event.data.message.id;
        // Outside a chat view nothing says when the list shows it: step aside at once.
        if (shown) appended.current = id;
        else setReply((current) => (current && current.messageId === id ? null : current));
      } else if ((event.type === 'chat_done' || event.type === 'chat_error') && event.data.sessionId === sessionId) {
        setReply((current) => (current && current.messageId === appended.current ? current : null));
      } else if (event.type === 'resync') {
        setReply(null);
      }
    },
    { since },
  );
  // Each delta would parse the whole reply again: a long one renders what it can keep up with.
  const text = useDeferredValue(reply?.text ?? '');
  const inList = reply !== null && shown?.has(reply.messageId) === true;
  useEffect(() => {
    if (inList) setReply(null);
  }, [inList]);
  if (!reply || reply.start > 0 || inList) return null;
  return (
    <section aria-label="Reply in progress" aria-busy="true" className="rounded-lg border border-neutral-200 bg-neutral-50 px-4 py-3 dark:border-neutral-800 dark:bg-neutral-900">
      <MarkdownText text={text} />
      <span className="mt-1 inline-block h-3 w-1.5 animate-pulse bg-neutral-400" aria-hidden />
    </section>
  );
}
