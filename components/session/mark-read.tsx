'use client';

import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTRPC } from '@/trpc/client';

/** Opening a session marks it read: once, and only when it was unread. Renders nothing. */
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
  return null;
}
