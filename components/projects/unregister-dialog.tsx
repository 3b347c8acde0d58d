'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { DialogFrame } from '@/components/ui/dialog-frame';
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
    <DialogFrame
      look="panel"
      trigger={
        <Button variant="secondary" aria-label={`Unregister ${name}`}>
          Unregister
        </Button>
      }
      title={`Unregister ${name}?`}
      description="Only the registration is removed. The folder, its git history and the sessions of this project stay as they are."
      action={{ label: 'Unregister', onClick: () => unregister.mutate({ id: projectId }), variant: 'danger' }}
    />
  );
}
