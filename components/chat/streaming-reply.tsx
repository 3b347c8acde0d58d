'use client';

import { useState } from 'react';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { MarkdownText } from './markdown-text';

/**
 * The reply while it streams (chat_delta), rendered as Markdown as it grows. Once its node is
 * appended (or the turn ends) the session's own message list shows it, and this goes away.
 */
export function StreamingReply({ sessionId }: { sessionId: string }) {
  const [reply, setReply] = useState<{ messageId: string; text: string } | null>(null);
  useLiveEvents((event) => {
    if (event.type === 'chat_delta' && event.data.sessionId === sessionId) {
      const { messageId, delta } = event.data;
      setReply((current) => (current && current.messageId === messageId ? { messageId, text: current.text + delta } : { messageId, text: delta }));
    } else if (event.type === 'message_appended' && event.data.sessionId === sessionId) {
      setReply((current) => (current && current.messageId === event.data.message.id ? null : current));
    } else if ((event.type === 'chat_done' || event.type === 'chat_error') && event.data.sessionId === sessionId) {
      setReply(null);
    } else if (event.type === 'resync') {
      setReply(null);
    }
  });
  if (!reply) return null;
  return (
    <section aria-label="Reply in progress" aria-busy="true" className="rounded-lg border border-neutral-200 bg-neutral-50 px-4 py-3 dark:border-neutral-800 dark:bg-neutral-900">
      <MarkdownText text={reply.text} />
      <span className="mt-1 inline-block h-3 w-1.5 animate-pulse bg-neutral-400" aria-hidden />
    </section>
  );
}
