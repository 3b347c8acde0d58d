'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { agentLabel } from '@/components/sessions/agent-label';
import { useTRPC } from '@/trpc/client';

/** A session of the web chat (or a bare one a client made): where a reader expects to chat, unlike an agent's recorded session. */
export function isWebChat(session: { agentName: string | null }): boolean {
  return agentLabel(session) === null;
}

/** Folded once, folded on every page of this browser: a reader who knows chat is off is not told again. */
const FOLDED_KEY = 'em:no-model-notice-folded';

/**
 * With no model, one line above the composer says that chat is off, worded for who reads it: the
 * admin is sent to the Admin page (where the reason is), anyone else is told that only an admin
 * can turn it on (the Admin page is a 404 for them). It folds to a small "Chat is off" button, so
 * on a phone it does not push the composer over the messages.
 */
export function NoModelNotice() {
  const trpc = useTRPC();
  const status = useQuery(trpc.chat.modelStatus.queryOptions());
  const me = useQuery(trpc.user.me.queryOptions());
  const [folded, setFolded] = useState(false);
  useEffect(() => {
    setFolded(window.localStorage.getItem(FOLDED_KEY) === '1');
  }, []);
  if (!status.data || status.data.configured || !me.data) return null;

  const fold = (next: boolean) => {
    setFolded(next);
    try {
      if (next) window.localStorage.setItem(FOLDED_KEY, '1');
      else window.localStorage.removeItem(FOLDED_KEY);
    } catch {
      // storage refused (private mode): folded for this page only
    }
  };
  const toggle = 'shrink-0 rounded px-1.5 text-xs font-medium underline-offset-2 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-amber-600';

  return (
    <div role="status" aria-label="Chat is off" className={folded ? 'flex' : 'flex items-center gap-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-1.5 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100'}>
      {folded ? (
        <button type="button" aria-expanded={false} onClick={() => fold(false)} className={`${toggle} border border-amber-300 bg-amber-50 py-0.5 text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100`}>
          Chat is off
        </button>
      ) : (
        <>
          <p className="min-w-0 flex-1">
            {me.data.admin ? (
              <>
                <span className="font-medium">Chat is off:</span> no model is set.{' '}
                <Link href="/admin#models-title" className="underline">
                  Set one on the Admin page
                </Link>
                .
              </>
            ) : (
              <>
                <span className="font-medium">Chat is off:</span> no model is set up, and only an admin can set one.
              </>
            )}
          </p>
          <button type="button" aria-expanded={true} onClick={() => fold(true)} className={toggle}>
            Hide
          </button>
        </>
      )}
    </div>
  );
}
