'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';

/** Per project: commit the agent's edits at the end of every turn (DESIGN §4.8), on by default. */
export function AutoCommitSwitch({ projectId, on }: { projectId: string; on: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const set = useMutation(
    trpc.project.setAutoCommit.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.project.list.queryKey() }),
      onError: (error) => toast.error(`Auto-commit not changed: ${error.message}`),
    }),
  );
  const checked = set.isPending && set.variables ? set.variables.on : on;
  return (
    <label className="inline-flex cursor-pointer items-center gap-2 text-sm">
      <button
        type="button"
        role="switch"
        aria-checked={checked}
        aria-label="Auto-commit"
        disabled={set.isPending}
        onClick={() => set.mutate({ id: projectId, on: !checked })}
        className={`relative inline-flex h-5 w-9 shrink-0 items-center rounded-full transition-colors focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:ring-offset-2 dark:focus-visible:ring-offset-neutral-950 ${checked ? 'bg-blue-600 dark:bg-blue-500' : 'bg-neutral-300 dark:bg-neutral-700'}`}
      >
        <span className={`inline-block h-4 w-4 rounded-full bg-white shadow transition-transform ${checked ? 'translate-x-4' : 'translate-x-0.5'}`} />
      </button>
      <span aria-hidden="true">Auto-commit</span>
    </label>
  );
}
