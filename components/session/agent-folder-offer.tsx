'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { FolderPlus } from 'lucide-react';
import { toast } from 'sonner';
import { useTRPC } from '@/trpc/client';

/**
 * An agent's session in Home whose folder is no project of the user (DESIGN §14): its edits are
 * not kept. One button adds the folder as a project and moves the session there, so the next
 * exchanges commit the agent's edits. Outside the user's allowed folders it only says so.
 */
export function AgentFolderOffer({ sessionId, folder }: { sessionId: string; folder: { path: string; addable: boolean } }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const add = useMutation(trpc.session.addAgentFolder.mutationOptions());
  const label = `Add ${folder.path} as a project`;

  async function onAdd() {
    try {
      const result = await add.mutateAsync({ id: sessionId });
      toast.success(`Added ${result.project.name}: the agent's next edits are committed there`);
      void queryClient.invalidateQueries({ queryKey: trpc.session.get.queryKey({ id: sessionId }) });
      void queryClient.invalidateQueries({ queryKey: trpc.project.list.queryKey() });
    } catch (failure) {
      toast.error((failure as Error).message);
    }
  }

  return (
    <section aria-label="Agent's folder" className="flex flex-wrap items-center gap-2 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
      {folder.addable ? (
        <>
          <span className="min-w-0 break-all">
            The agent worked in <code>{folder.path}</code>, which is not one of your projects: its edits are not kept.
          </span>
          <button
            type="button"
            onClick={() => void onAdd()}
            disabled={add.isPending}
            className="inline-flex items-center gap-1 rounded-md bg-amber-600 px-2 py-1 text-xs font-medium text-white hover:bg-amber-700 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none disabled:opacity-60"
          >
            <FolderPlus size={16} aria-hidden />
            {`${label} to keep the agent's edits`}
          </button>
        </>
      ) : (
        <span className="min-w-0 break-all">
          The agent worked in <code>{folder.path}</code>, outside the folders you may add as projects, so its edits are not kept here.
        </span>
      )}
    </section>
  );
}
