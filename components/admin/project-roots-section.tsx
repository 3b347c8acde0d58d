'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type Root = RouterOutputs['admin']['projectRoots'][number];
type User = RouterOutputs['admin']['listUsers'][number];

/**
 * Folders a user may add projects from, besides their own workspace (DESIGN §2). One user per
 * folder: the server refuses a folder inside or around another user's, or the data directory.
 */
export function ProjectRootsSection({ initialRoots, users }: { initialRoots: Root[]; users: User[] }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roots = useQuery(trpc.admin.projectRoots.queryOptions(undefined, { initialData: initialRoots }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.admin.projectRoots.queryKey() });
  const add = useMutation(trpc.admin.addProjectRoot.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.admin.removeProjectRoot.mutationOptions({ onSuccess: refresh }));
  const [userId, setUserId] = useState(users[0]?.id ?? '');
  const [path, setPath] = useState('');
  const [message, setMessage] = useState<{ error?: string; success?: string }>({});
  const selectId = useId();
  const emailOf = (root: Root) => root.email ?? users.find((user) => user.id === root.userId)?.email ?? root.userId;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    try {
      const root = await add.mutateAsync({ userId, path: path.trim() });
      setPath('');
      setMessage({ success: `${emailOf({ ...root, email: null })} may now add projects inside ${root.path}.` });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  async function onRemove(root: Root) {
    try {
      await remove.mutateAsync({ userId: root.userId, path: root.path });
      setMessage({ success: `Removed ${root.path} from ${emailOf(root)}'s folders.` });
    } catch (failure) {
      setMessage({ error: (failure as Error).message });
    }
  }

  const list = roots.data ?? [];
  return (
    <div className="space-y-4">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Everyone may add projects inside their own workspace folder. Give a user more folders here (or with OPENPROGRAM_ALLOWED_ROOTS); a folder belongs to
        one user only.
      </p>
      {list.length > 0 ? (
        <ul aria-label="Project folders of users" className="divide-y divide-neutral-200 rounded-md border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800">
          {list.map((root) => (
            <li key={`${root.userId}:${root.path}`} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2 text-sm">
              <div className="min-w-0 flex-1">
                <p className="truncate font-medium">{emailOf(root)}</p>
                <p className="break-all font-mono text-xs text-neutral-600 dark:text-neutral-400">{root.path}</p>
              </div>
              {root.from === 'env' ? (
                <span className="text-xs text-neutral-500">from OPENPROGRAM_ALLOWED_ROOTS</span>
              ) : (
                <Button variant="secondary" className="px-2 py-1 text-xs" aria-label={`Remove ${root.path} from ${emailOf(root)}`} onClick={() => void onRemove(root)}>
                  Remove
                </Button>
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-neutral-500 dark:text-neutral-400">No extra folders yet.</p>
      )}
      <form onSubmit={(event) => void onSubmit(event)} aria-label="Add a project folder" className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <div className="sm:w-56">
          <label htmlFor={selectId} className="block text-sm font-medium text-neutral-700 dark:text-neutral-300">
            User
          </label>
          <select
            id={selectId}
            value={userId}
            onChange={(event) => setUserId(event.target.value)}
            className="mt-1 block w-full rounded-md border border-neutral-300 bg-white px-3 py-2 text-sm dark:border-neutral-700 dark:bg-neutral-900"
          >
            {users.map((user) => (
              <option key={user.id} value={user.id}>
                {user.email}
              </option>
            ))}
          </select>
        </div>
        <TextField label="Folder (absolute path)" name="root" className="min-w-0 flex-1" value={path} onChange={(event) => setPath(event.target.value)} required maxLength={4096} autoComplete="off" spellCheck={false} />
        <Button type="submit" disabled={add.isPending || !userId} className="shrink-0">
          Add folder
        </Button>
      </form>
      <FormMessage error={message.error} success={message.success} />
    </div>
  );
}
