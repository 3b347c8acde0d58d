'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';

/** With no model the composer says so, why, and how to configure one; everything else keeps working. */
export function NoModelNotice() {
  const trpc = useTRPC();
  const status = useQuery(trpc.chat.modelStatus.queryOptions());
  if (!status.data || status.data.configured) return null;
  return (
    <div role="status" aria-label="No model" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100">
      <p className="font-medium">Chat is off: no model is available.</p>
      <p className="mt-1">Reason: {status.data.reason}.</p>
      <p className="mt-1">
        To configure one, an admin sets a model on the <a href="/admin" className="underline">Admin page</a>, or the server is started with{' '}
        <code>OPENPROGRAM_LLM_BASE_URL</code> and <code>OPENPROGRAM_LLM_MODEL</code>. Your sessions can still be read, searched and managed.
      </p>
    </div>
  );
}
