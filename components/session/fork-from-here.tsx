'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { GitFork } from 'lucide-react';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { DialogFrame } from '@/components/ui/dialog-frame';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';

type At = { turn: number } | { nodeId: string };

/**
 * "Fork from here" (DESIGN §14) on a turn of the timeline or a reply of the session page: a new
 * session with the conversation up to there and, in a project, that turn's code in a git worktree
 * of its own (a folder the user may name) or on a branch only. The fork's page then shows where
 * its code is. A refusal (a folder inside the project, taken, outside the allowed ones) is said
 * in the dialog, and nothing was made.
 */
export function ForkFromHere({ sessionId, at }: { sessionId: string; at: At }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [code, setCode] = useState<'worktree' | 'branch'>('worktree');
  const [error, setError] = useState<string | null>(null);
  const detail = useQuery({ ...trpc.session.get.queryOptions({ id: sessionId }), enabled: open });
  const fork = useMutation(trpc.session.fork.mutationOptions());
  const inProject = detail.data ? detail.data.projectId !== 'default' : false;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    const folder = String(new FormData(event.currentTarget).get('worktree') ?? '').trim();
    try {
      const result = await fork.mutateAsync({ id: sessionId, ...at, ...(inProject ? { code, ...(code === 'worktree' && folder ? { worktree: folder } : {}) } : {}) });
      setOpen(false);
      void queryClient.invalidateQueries({ queryKey: trpc.session.list.pathKey() });
      router.push(`/sessions/${encodeURIComponent(result.session.id)}`);
    } catch (failure) {
      setError((failure as Error).message);
    }
  }

  const where = 'turn' in at ? `turn ${at.turn}` : 'this message';
  return (
    <DialogFrame
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setError(null);
      }}
      trigger={
        <button
          type="button"
          className="inline-flex items-center gap-1 rounded-md border border-neutral-300 px-2 py-1 text-xs hover:bg-neutral-100 focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none dark:border-neutral-700 dark:hover:bg-neutral-800"
        >
          <GitFork size={14} aria-hidden />
          Fork from here
        </button>
      }
      title="Fork from here"
      description={`A new session with the conversation up to ${where}${inProject ? ", and the project's code as it was then" : ''}. The original stays as it is.`}
      onSubmit={(event) => void submit(event)}
      submit={{ label: fork.isPending ? 'Forking…' : 'Create fork', disabled: fork.isPending || detail.isPending }}
    >
      {inProject ? (
        <fieldset className="space-y-2 text-sm">
          <legend className="font-medium text-neutral-700 dark:text-neutral-300">The project&apos;s code</legend>
          <label className="flex items-center gap-2">
            <input type="radio" name="code" value="worktree" checked={code === 'worktree'} onChange={() => setCode('worktree')} />
            In a git worktree of its own: the fork&apos;s turns commit there
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name="code" value="branch" checked={code === 'branch'} onChange={() => setCode('branch')} />
            On a branch only (check it out yourself)
          </label>
          {code === 'worktree' ? (
            <TextField label="Worktree folder (optional)" name="worktree" placeholder="beside the project: <folder>.forks/<fork id>" autoComplete="off" />
          ) : null}
        </fieldset>
      ) : null}
      <FormMessage error={error} />
    </DialogFrame>
  );
}

/** On a fork's page: where it came from and where its code is (the worktree's path). */
export function ForkNotice({ fork }: { fork: { of: string; turn: number; branch: string | null; worktree: string | null } }) {
  return (
    <section aria-label="Fork" className="rounded-md border border-violet-300 bg-violet-50 px-3 py-2 text-sm text-violet-900 dark:border-violet-800 dark:bg-violet-950 dark:text-violet-200">
      <p className="min-w-0 break-all">
        Forked from{' '}
        <a href={`/sessions/${encodeURIComponent(fork.of)}`} className="underline">
          the original session
        </a>{' '}
        at turn {fork.turn}.{' '}
        {fork.worktree ? (
          <>
            Its code is in the worktree <code>{fork.worktree}</code> on branch <code>{fork.branch}</code>; its turns commit there.
          </>
        ) : fork.branch ? (
          <>
            Its code is on branch <code>{fork.branch}</code> of the project.
          </>
        ) : null}
      </p>
    </section>
  );
}
