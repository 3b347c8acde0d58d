'use client';

import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { useTRPC } from '@/trpc/client';

/** Unregister removes the registration only (entity-memory.zh.md §4.4): the folder's git history and the sessions stay. */
export function UnregisterDialog({ projectId, name }: { projectId: string; name: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const unregister = useMutation(
    trpc.project.unregister.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.project.list.queryKey() }),
      onError: (error) => toast.error(`Not unregistered: ${error.message}`),
    }),
  );
  return (
    <AlertDialog.Root>
      <AlertDialog.Trigger asChild>
        <Button variant="secondary" aria-label={`Unregister ${name}`}>
          Unregister
        </Button>
      </AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <AlertDialog.Content className="fixed left-1/2 top-1/2 z-50 w-[min(28rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 space-y-4 rounded-md border border-neutral-200 bg-white p-5 shadow-lg dark:border-neutral-800 dark:bg-neutral-950">
          <AlertDialog.Title className="text-lg font-semibold">Unregister {name}?</AlertDialog.Title>
          <AlertDialog.Description className="text-sm text-neutral-600 dark:text-neutral-400">
            Only the registration is removed. The folder, its git history and the sessions of this project stay as they are.
          </AlertDialog.Description>
          <div className="flex justify-end gap-2">
            <AlertDialog.Cancel asChild>
              <Button variant="secondary">Cancel</Button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <Button variant="danger" onClick={() => unregister.mutate({ id: projectId })}>
                Unregister
              </Button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
