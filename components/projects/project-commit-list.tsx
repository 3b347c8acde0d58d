import Link from 'next/link';
import { LocalTime } from '@/components/session/local-time';
import { UndoneBadge } from '@/components/timeline/turn-entry';
import { CommitDiffToggle } from './commit-diff-toggle';
import { shortSha } from '@/components/timeline/format-time';
import type { RouterOutputs } from '@/trpc/types';

type ProjectCommit = RouterOutputs['project']['commits'][number];

/**
 * The agent's commits in a project, each tied back to the session turn that made it (the
 * OpenProgram-Session / OpenProgram-Turn trailers) and linking to that turn on the timeline, with
 * its diff; an undone one is marked (the branch no longer holds it, `git log` does not list it).
 */
export function ProjectCommitList({ projectId, commits, titles }: { projectId: string; commits: ProjectCommit[]; titles: Record<string, string | null> }) {
  if (commits.length === 0) return <p className="text-sm text-neutral-600 dark:text-neutral-400">No agent commits yet: they appear here after a turn that changed files in this project.</p>;
  return (
    <ol className="divide-y divide-neutral-200 rounded-md border border-neutral-200 dark:divide-neutral-800 dark:border-neutral-800" aria-label="Agent commits">
      {commits.map((commit) => {
        const title = commit.sessionId ? titles[commit.sessionId] : null;
        return (
          <li key={commit.sha} className="space-y-1 p-3">
            <p className="flex flex-wrap items-center gap-2 break-words text-sm font-medium">
              <span className={commit.undone ? 'line-through decoration-neutral-400' : undefined}>{commit.message}</span>
              {commit.undone ? <UndoneBadge /> : null}
            </p>
            {commit.undone ? <p className="text-xs text-amber-800 dark:text-amber-300">Undone from its turn: no longer on the branch. Redo on the timeline puts it back.</p> : null}
            <p className="flex flex-wrap gap-x-3 text-xs text-neutral-500 dark:text-neutral-400">
              <code title={commit.sha}>{shortSha(commit.sha)}</code>
              <span>{commit.author}</span>
              <LocalTime ms={commit.createdAt} />
            </p>
            {commit.sessionId && commit.turn !== null ? (
              title !== null && title !== undefined ? (
                <Link
                  href={`/sessions/${encodeURIComponent(commit.sessionId)}/timeline#turn-${commit.turn}`}
                  className="text-sm text-blue-600 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-blue-400"
                >
                  {title} · turn {commit.turn}
                </Link>
              ) : (
                <p className="text-sm text-neutral-500">
                  Session {commit.sessionId} · turn {commit.turn} (deleted)
                </p>
              )
            ) : null}
            <CommitDiffToggle projectId={projectId} sha={commit.sha} />
          </li>
        );
      })}
    </ol>
  );
}
