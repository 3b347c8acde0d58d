import Link from 'next/link';
import { GitBranch, GitCommitHorizontal } from 'lucide-react';
import { TurnFileUndo } from '@/components/chat/turn-file-undo';
import type { RouterOutputs } from '@/trpc/types';
import { LocalTime } from '@/components/session/local-time';
import { shortSha } from './format-time';
import { NestedGitWarning } from './nested-git-warning';
import { isQuietSkip, skipReasonText } from './skip-reason';
import { ProjectCommitDiff } from './project-commit-diff';
import { ForkFromHere } from '@/components/session/fork-from-here';
import { LinkedProjectCommits } from './linked-project-commits';

export type TimelineTurn = RouterOutputs['timeline']['list']['commits'][number];

const ROLE_STYLE: Record<string, string> = {
  user: 'bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-300',
  assistant: 'bg-emerald-100 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-300',
  tool: 'bg-amber-100 text-amber-800 dark:bg-amber-950 dark:text-amber-300',
  system: 'bg-neutral-200 text-neutral-800 dark:bg-neutral-800 dark:text-neutral-200',
};

function roleWord(node: TimelineTurn['nodes'][number]): string {
  if (node.name === 'project/relocate' || node.name === 'turn/interrupted') return 'record';
  if (node.name === 'chat/settings') return 'settings';
  return node.role;
}

export function UndoneBadge() {
  return <span className="rounded bg-amber-100 px-1.5 py-0.5 text-xs font-medium text-amber-900 dark:bg-amber-950 dark:text-amber-300">Undone</span>;
}

/**
 * An agent's tool round-trip: the proxy records each exchange as a turn, so the results of a
 * prompt's tool calls come back in a turn of their own, without a user message.
 */
function isToolResults(turn: TimelineTurn): boolean {
  return turn.nodes.some((node) => node.role === 'tool') && !turn.nodes.some((node) => node.role === 'user');
}

/** A message without text: the calls it made, when it made any. */
function NoTextLine({ toolCalls }: { toolCalls: string[] }) {
  if (toolCalls.length === 0) return <em className="text-neutral-500">(empty)</em>;
  return (
    <span className="text-neutral-600 dark:text-neutral-400">
      {toolCalls.length === 1 ? 'Tool call: ' : 'Tool calls: '}
      <span className="font-mono">{toolCalls.join(', ')}</span>
    </span>
  );
}

/** One turn commit: what it added, its project commit (with the diff) or why none, its forks. */
export function TurnEntry({ sessionId, projectId, turn }: { sessionId: string; projectId: string; turn: TimelineTurn }) {
  const headingId = `turn-${turn.turn}-heading`;
  const project = turn.projectCommitInfo;
  const undone = turn.fileEdits === 'undone';
  return (
    <article id={`turn-${turn.turn}`} aria-labelledby={headingId} className="scroll-mt-4 rounded-md border border-neutral-200 bg-white p-4 dark:border-neutral-800 dark:bg-neutral-950">
      <header className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
        <h2 id={headingId} className="text-base font-semibold">
          Turn {turn.turn}
          {isToolResults(turn) ? <span className="font-normal text-neutral-600 dark:text-neutral-400"> · tool results</span> : null}
        </h2>
        <LocalTime ms={turn.createdAt} className="text-xs text-neutral-500 dark:text-neutral-400" />
        <code className="text-xs text-neutral-500 dark:text-neutral-400" title={turn.sha}>
          {shortSha(turn.sha)}
        </code>
        <Link
          href={`/sessions/${encodeURIComponent(sessionId)}/at/${turn.sha}`}
          className="ml-auto rounded-md text-sm text-blue-600 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-blue-400"
        >
          Open as of turn {turn.turn}
        </Link>
        <ForkFromHere sessionId={sessionId} at={{ turn: turn.turn }} />
      </header>
      <p className="mt-1 break-words text-sm text-neutral-700 dark:text-neutral-300">{turn.message}</p>
      {turn.nestedGit.length > 0 ? <NestedGitWarning paths={turn.nestedGit} /> : null}

      {turn.retryForks.length > 0 ? (
        <p className="mt-2 mr-2 inline-flex items-center gap-1.5 rounded-md bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-800 dark:bg-violet-950 dark:text-violet-300">
          <GitBranch size={14} aria-hidden="true" />
          {turn.retryForks.length === 1 ? 'Fork: a reply of this turn was retried' : `Fork: ${turn.retryForks.length} replies of this turn were retried`}
        </p>
      ) : null}

      {turn.nodes.some((node) => node.editOf !== null) ? (
        <p className="mt-2 mr-2 inline-flex items-center gap-1.5 rounded-md bg-sky-100 px-2 py-0.5 text-xs font-medium text-sky-800 dark:bg-sky-950 dark:text-sky-300">
          <GitBranch size={14} aria-hidden="true" />
          Fork: an edited question, resent as a new branch
        </p>
      ) : null}

      {turn.nodes.length > 0 ? (
        <ul aria-label="Messages added" className="mt-3 space-y-1">
          {turn.nodes.map((node) => (
            <li key={node.id} className="flex min-w-0 items-baseline gap-2 text-sm">
              <span className={`shrink-0 rounded px-1.5 py-0.5 text-xs font-medium ${ROLE_STYLE[node.role] ?? ROLE_STYLE.system}`}>{roleWord(node)}</span>
              <span className="min-w-0 truncate text-neutral-800 dark:text-neutral-200">{node.firstLine || <NoTextLine toolCalls={node.toolCalls} />}</span>
              {node.editOf ? <span className="shrink-0 text-xs text-sky-700 dark:text-sky-300">edited</span> : null}
            </li>
          ))}
        </ul>
      ) : null}

      <section aria-label="Project commit" className="mt-3 border-t border-neutral-200 pt-3 dark:border-neutral-800">
        {turn.projectCommit ? (
          <div className="space-y-2">
            <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-sm">
              <GitCommitHorizontal size={16} aria-hidden="true" className="text-neutral-500" />
              <span className="font-medium">Project commit</span>
              <code className={`text-xs text-neutral-500 dark:text-neutral-400 ${undone ? 'line-through' : ''}`}>{shortSha(turn.projectCommit)}</code>
              {undone ? <UndoneBadge /> : null}
              {project ? <span className={`text-neutral-700 dark:text-neutral-300 ${undone ? 'line-through decoration-neutral-400' : ''}`}>{project.message}</span> : null}
            </p>
            {undone ? (
              <p className="text-xs text-amber-800 dark:text-amber-300">
                Undone: the project&apos;s branch was moved back past this commit, so <code>git log</code> no longer lists it. Redo puts it back.
              </p>
            ) : null}
            {turn.sharedWith.length > 0 ? (
              <p className="text-xs text-amber-800 dark:text-amber-300">
                May include edits of{' '}
                {turn.sharedWith.map((other, index) => (
                  <span key={other.id}>
                    {index > 0 ? ', ' : null}
                    <Link href={`/sessions/${encodeURIComponent(other.id)}`} className="underline">
                      {other.title || other.id}
                    </Link>
                  </span>
                ))}
                : another session was working in this folder since its last commit.
              </p>
            ) : null}
            {project ? (
              <p className="text-xs text-neutral-500 dark:text-neutral-400">
                by {project.author} · {project.files.length === 1 ? '1 file changed' : `${project.files.length} files changed`}
              </p>
            ) : (
              <p className="text-xs text-neutral-500 dark:text-neutral-400">The project's repository cannot show this commit now (its folder may have moved, or the commit was undone and pruned).</p>
            )}
            {project ? <ProjectCommitDiff projectId={projectId} sha={turn.projectCommit} /> : null}
            <TurnFileUndo sessionId={sessionId} turn={turn.turn} fileEdits={turn.fileEdits} />
          </div>
        ) : turn.projectCommitSkipped ? (
          <div className="space-y-2">
            <p className={`text-sm ${isQuietSkip(turn.projectCommitSkipped) ? 'text-neutral-600 dark:text-neutral-400' : 'text-amber-800 dark:text-amber-300'}`}>{skipReasonText(turn.projectCommitSkipped)}</p>
            {turn.fileEdits ? (
              <>
                {undone ? <p className="text-xs text-amber-800 dark:text-amber-300"><UndoneBadge /> The agent&apos;s file edits of this turn were undone. Redo puts them back.</p> : null}
                <TurnFileUndo sessionId={sessionId} turn={turn.turn} fileEdits={turn.fileEdits} />
              </>
            ) : null}
          </div>
        ) : turn.linkedCommits.length > 0 ? (
          <LinkedProjectCommits commits={turn.linkedCommits} />
        ) : (
          <p className="text-sm text-neutral-500 dark:text-neutral-400">{skipReasonText(null)}</p>
        )}
      </section>
    </article>
  );
}
