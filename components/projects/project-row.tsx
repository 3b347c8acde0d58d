import Link from 'next/link';
import { FolderGit2, FolderX } from 'lucide-react';
import type { RouterOutputs } from '@/trpc/types';
import { AutoCommitSwitch } from './auto-commit-switch';
import { RelocateDialog } from './relocate-dialog';
import { UnregisterDialog } from './unregister-dialog';

type Project = RouterOutputs['project']['list'][number];

/** One project: where it lives, how many sessions, its switch, and the repair when its folder is gone. */
export function ProjectRow({ project }: { project: Project }) {
  const headingId = `project-${project.id}`;
  return (
    <article aria-labelledby={headingId} className="flex flex-col gap-3 rounded-md border border-neutral-200 bg-white p-4 sm:flex-row sm:items-center dark:border-neutral-800 dark:bg-neutral-950">
      <div className="min-w-0 flex-1 space-y-1">
        <h2 id={headingId} className="flex items-center gap-2 font-semibold">
          {project.pathMissing ? <FolderX size={16} aria-hidden="true" className="text-red-600" /> : <FolderGit2 size={16} aria-hidden="true" className="text-neutral-500" />}
          {project.isDefault ? (
            project.name
          ) : (
            <Link href={`/projects/${encodeURIComponent(project.id)}`} className="text-blue-600 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-blue-400">
              {project.name}
            </Link>
          )}
        </h2>
        <p className="break-all font-mono text-xs text-neutral-600 dark:text-neutral-400">{project.path}</p>
        <p className="text-xs text-neutral-500 dark:text-neutral-400">
          {project.sessionCount === 1 ? '1 session' : `${project.sessionCount} sessions`}
          {project.isDefault ? ' · your workspace, no repository' : null}
        </p>
        {project.pathMissing ? (
          <p className="text-sm font-medium text-red-700 dark:text-red-400">Folder missing: turns in this project are refused until you relocate it.</p>
        ) : null}
      </div>
      {project.isDefault ? null : (
        <div className="flex flex-wrap items-center gap-3">
          <AutoCommitSwitch projectId={project.id} on={project.autoCommit} />
          {project.pathMissing ? <RelocateDialog projectId={project.id} name={project.name} oldPath={project.path} /> : null}
          <UnregisterDialog projectId={project.id} name={project.name} />
        </div>
      )}
    </article>
  );
}
