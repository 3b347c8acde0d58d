'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FolderPlus } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type Inspection = RouterOutputs['project']['inspect'];
type Created = RouterOutputs['project']['create'];

/**
 * Add a project: a folder inside the allowed roots (listed under the form). The folder is looked
 * at first; when it has no repository, or does not exist yet, the form says so and offers the
 * `git init` (or the new folder) as its own step, instead of doing it unasked.
 */
export function AddProjectForm({ onAdded, autoFocus = false }: { onAdded?(project: Created): void; autoFocus?: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roots = useQuery(trpc.project.roots.queryOptions());
  const create = useMutation(trpc.project.create.mutationOptions());
  const [path, setPath] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);
  const [pending, setPending] = useState<Inspection | null>(null);
  const [busy, setBusy] = useState(false);

  async function add(folder: string) {
    const project = await create.mutateAsync({ path: folder, ...(name.trim() ? { name: name.trim() } : {}) });
    await queryClient.invalidateQueries({ queryKey: trpc.project.list.queryKey() });
    setPending(null);
    setPath('');
    setName('');
    setSuccess(project.created ? `Added project ${project.name}.` : `That folder is already the project ${project.name}.`);
    onAdded?.(project);
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    setSuccess(null);
    setPending(null);
    const folder = path.trim();
    if (!folder) {
      setError('Enter the folder of the project.');
      return;
    }
    setBusy(true);
    try {
      const inspection = await queryClient.fetchQuery({ ...trpc.project.inspect.queryOptions({ path: folder }), staleTime: 0 });
      if (inspection.projectId !== null || inspection.isRepository) await add(inspection.path);
      else setPending(inspection);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  }

  async function confirm() {
    if (!pending) return;
    setError(null);
    setBusy(true);
    try {
      await add(pending.path);
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  }

  const rootList = roots.data?.roots ?? [];
  return (
    <form onSubmit={(event) => void onSubmit(event)} aria-label="Add project" className="space-y-3">
      <div className="flex flex-col gap-3 sm:flex-row sm:items-end">
        <TextField
          label="Folder"
          name="path"
          className="min-w-0 flex-[2]"
          value={path}
          onChange={(event) => {
            setPath(event.target.value);
            setPending(null);
          }}
          placeholder={rootList[0] ? `${rootList[0]}/my-app` : 'my-app'}
          autoFocus={autoFocus}
          autoComplete="off"
          spellCheck={false}
          maxLength={4096}
        />
        <TextField label="Name (optional)" name="name" className="min-w-0 flex-1" value={name} onChange={(event) => setName(event.target.value)} maxLength={200} autoComplete="off" />
        <Button type="submit" disabled={busy} className="shrink-0">
          <FolderPlus size={16} aria-hidden />
          Add project
        </Button>
      </div>
      <p className="text-xs text-neutral-500 dark:text-neutral-400">
        An absolute path, or one relative to Home. Allowed inside: {rootList.length > 0 ? rootList.join(', ') : roots.isError ? '(could not be read)' : '…'}
        {rootList.length === 1 ? ' (an admin can add more folders on the Admin page).' : '.'}
      </p>
      {pending ? (
        <div role="group" aria-label="Confirm the new repository" className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
          {pending.initBlockers.length > 0 ? (
            <p>
              {pending.path} is not a git repository, and it holds {pending.initBlockers.join(', ')}, which a .gitignore does not exclude: they would be
              swept into the first commit. Add them to .gitignore (or run git init there yourself), then add the folder again.
            </p>
          ) : (
            <>
              <p>
                {pending.exists ? `${pending.path} is not a git repository.` : `${pending.path} does not exist yet.`} Each turn commits the agent&apos;s edits to the
                project&apos;s own repository, so it needs one: {pending.exists ? 'git init here, with a first commit of the files already in it.' : 'create the folder and git init it.'}
              </p>
              <div className="flex flex-wrap gap-2">
                <Button onClick={() => void confirm()} disabled={busy}>
                  {pending.exists ? 'Run git init and add' : 'Create folder and add'}
                </Button>
                <Button variant="secondary" onClick={() => setPending(null)} disabled={busy}>
                  Cancel
                </Button>
              </div>
            </>
          )}
        </div>
      ) : null}
      <FormMessage error={error} success={success} />
    </form>
  );
}
