'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { toast } from 'sonner';
import { Button } from '@/components/ui/button';
import { DialogFrame } from '@/components/ui/dialog-frame';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';

/**
 * The repair of a project whose folder moved: the new path, and the session that gets the
 * project/relocate record (operations.zh.md "修复缺失的目录"), its latest one by default.
 */
export function RelocateDialog({ projectId, name, oldPath }: { projectId: string; name: string; oldPath: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [path, setPath] = useState('');
  const [sessionId, setSessionId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const selectId = useId();
  const sessions = useQuery({ ...trpc.session.list.queryOptions({ projectId, scope: 'all', limit: 50 }), enabled: open });
  const rows = sessions.data?.rows ?? [];
  const chosen = sessionId ?? rows[0]?.id ?? '';
  const relocate = useMutation(
    trpc.project.relocate.mutationOptions({
      onSuccess: async (result) => {
        await queryClient.invalidateQueries();
        setOpen(false);
        toast.success(result.nodeId ? `${name} now lives at ${result.path}; the session has a record of the move.` : `${name} now lives at ${result.path}.`);
      },
      onError: (failure) => setError(failure.message),
    }),
  );
  return (
    <DialogFrame
      look="panel"
      width="lg"
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        setError(null);
      }}
      trigger={
        <Button variant="primary" aria-label={`Relocate ${name}`}>
          Relocate
        </Button>
      }
      title={`Relocate ${name}`}
      description={
        <>
          The folder <code className="break-all">{oldPath}</code> is gone. Enter where it is now; the project keeps its id, history and sessions.
        </>
      }
      onSubmit={(event) => {
        event.preventDefault();
        setError(null);
        relocate.mutate({ id: projectId, path: path.trim(), ...(chosen ? { sessionId: chosen } : {}) });
      }}
      submit={{ label: relocate.isPending ? 'Relocating…' : 'Relocate', disabled: relocate.isPending || path.trim() === '' }}
    >
      <TextField label="New path" value={path} onChange={(event) => setPath(event.target.value)} required autoFocus placeholder="/home/me/projects/app" />
      <div>
        <label htmlFor={selectId} className="block text-sm font-medium text-neutral-700 dark:text-neutral-300">
          Record the move in
        </label>
        <select
          id={selectId}
          value={chosen}
          onChange={(event) => setSessionId(event.target.value)}
          className="mt-1 block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900"
        >
          {rows.map((row) => (
            <option key={row.id} value={row.id}>
              {row.title || row.preview || row.id}
            </option>
          ))}
          <option value="">No session</option>
        </select>
      </div>
      <FormMessage error={error} />
    </DialogFrame>
  );
}
