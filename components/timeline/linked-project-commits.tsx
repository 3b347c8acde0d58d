import { GitCommitHorizontal } from 'lucide-react';
import type { RouterOutputs } from '@/trpc/types';
import { shortSha } from './format-time';

type LinkedCommit = RouterOutputs['timeline']['list']['commits'][number]['linkedCommits'][number];

/**
 * An imported turn (DESIGN §14): the project commits its agent made itself while the turn ran,
 * found in the project's history by time and author. They are the agent's own commits, not ours,
 * so there is no undo here.
 */
export function LinkedProjectCommits({ commits }: { commits: LinkedCommit[] }) {
  return (
    <div className="space-y-1">
      <p className="text-sm font-medium">{commits.length === 1 ? 'Project commit made during this turn' : `${commits.length} project commits made during this turn`}</p>
      <ul aria-label="Project commits made during this turn" className="space-y-1">
        {commits.map((commit) => (
          <li key={commit.sha} className="flex flex-wrap items-center gap-x-2 text-sm">
            <GitCommitHorizontal size={16} aria-hidden="true" className="text-neutral-500" />
            <code className="text-xs text-neutral-500 dark:text-neutral-400" title={commit.sha}>
              {shortSha(commit.sha)}
            </code>
            {commit.info ? (
              <>
                <span className="text-neutral-700 dark:text-neutral-300">{commit.info.message}</span>
                <span className="text-xs text-neutral-500 dark:text-neutral-400">by {commit.info.author}</span>
              </>
            ) : (
              <span className="text-xs text-neutral-500 dark:text-neutral-400">(not readable in the project now)</span>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
