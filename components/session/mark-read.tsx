'use client';

import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useLiveEvents } from '@/components/live/live-events-provider';
import { useTRPC } from '@/trpc/client';

/**
 * Opening a session marks it read: once, and only when it was unread. An agent's reply that
 * arrives while the person is looking at it is read too (it would mark the session unread).
 * Renders nothing.
 */
export function MarkRead({ sessionId, unread }: { sessionId: string; unread: boolean }) {
  const trpc = useTRPC();
  const update = useMutation(trpc.session.update.mutationOptions());
  const done = useRef(false);
  const { mutate } = update;
  useEffect(() => {
    if (!unread || done.current) return;
    done.current = true;
    mutate({ id: sessionId, unread: false });
  }, [mutate, sessionId, unread]);
  // The reply's message_appended comes just before the session_updated that marks it unread; a
  // "Mark as unread" from a menu has none before it, and stays.
  const lastReplyAt = useRef(0);
  useLiveEvents((event) => {
    if (event.type === 'message_appended' && event.data.sessionId === sessionId && event.data.message.role === 'assistant') lastReplyAt.current = Date.now();
    else if (event.type === 'session_updated' && event.data.id === sessionId && event.data.unread === true) {
      if (Date.now() - lastReplyAt.current < 2_000 && document.visibilityState === 'visible') mutate({ id: sessionId, unread: false });
    }
  });
  return null;
}
