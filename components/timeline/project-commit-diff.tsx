'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';
import { DiffFileView } from './diff-file-view';

/** The patch of a project commit, fetched when its turn is shown (a page of turns need not wait for every diff). */
export function ProjectCommitDiff({ projectId, sha }: { projectId: string; sha: string }) {
  const trpc = useTRPC();
  const diff = useQuery(trpc.project.commitDiff.queryOptions({ id: projectId, sha }, { staleTime: Infinity, retry: false }));
  if (diff.isPending) return <p className="text-xs text-neutral-500 dark:text-neutral-400">Loading the diff…</p>;
  if (diff.isError) return <p className="text-xs text-neutral-500 dark:text-neutral-400">The diff cannot be read: {diff.error.message}</p>;
  return (
    <div className="space-y-2" aria-label={`Diff of ${sha.slice(0, 8)}`} role="group">
      {diff.data.files.map((file) => (
        <DiffFileView key={file.path} {...file} />
      ))}
    </div>
  );
}
