'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ChevronLeft, ChevronRight } from 'lucide-react';
import { useState } from 'react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';
import { useReloadMessages } from './messages-context';

const BUTTON =
  'inline-flex size-6 items-center justify-center rounded-md text-neutral-600 hover:bg-neutral-100 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 disabled:opacity-40 disabled:hover:bg-transparent dark:text-neutral-400 dark:hover:bg-neutral-800';

/**
 * ‹ n/m › at a fork. A step goes to the sibling's newest branch tip (`branch.tipOf`), makes it the
 * head (`branch.setHead`) and has the list show that branch, with no page reload.
 */
export function BranchSwitcher({ sessionId, messageId, siblings }: { sessionId: string; messageId: string; siblings: string[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const reload = useReloadMessages();
  const setHead = useMutation(trpc.branch.setHead.mutationOptions());
  const [busy, setBusy] = useState(false);
  const index = siblings.indexOf(messageId);
  const label = `Branch ${index + 1} of ${siblings.length}`;

  const go = async (step: -1 | 1) => {
    const target = siblings[index + step];
    if (!target || busy) return;
    setBusy(true);
    try {
      const { headId } = await queryClient.fetchQuery({ ...trpc.branch.tipOf.queryOptions({ sessionId, nodeId: target }), staleTime: 0 });
      await setHead.mutateAsync({ sessionId, headId });
      await reload();
    } catch (error) {
      toast.error(`Could not switch branches: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div role="group" aria-label={label} className="inline-flex items-center gap-0.5 text-xs text-neutral-600 tabular-nums dark:text-neutral-400">
      <button type="button" aria-label="Previous branch" className={BUTTON} disabled={busy || index <= 0} onClick={() => go(-1)}>
        <ChevronLeft aria-hidden size={16} />
      </button>
      <span aria-hidden>
        {index + 1}/{siblings.length}
      </span>
      <button type="button" aria-label="Next branch" className={BUTTON} disabled={busy || index >= siblings.length - 1} onClick={() => go(1)}>
        <ChevronRight aria-hidden size={16} />
      </button>
    </div>
  );
}
