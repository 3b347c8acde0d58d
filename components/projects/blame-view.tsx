import Link from 'next/link';
import { shortSha } from '@/components/timeline/format-time';
import type { RouterOutputs } from '@/trpc/types';

type Blame = RouterOutputs['project']['blame'];
type BlameLine = Blame['lines'][number];

/** Runs of consecutive lines from the same commit: one gutter entry each. */
function groupsOf(lines: BlameLine[]): BlameLine[][] {
  const groups: BlameLine[][] = [];
  for (const line of lines) {
    const last = groups[groups.length - 1];
    if (last && last[0]!.sha === line.sha) last.push(line);
    else groups.push([line]);
  }
  return groups;
}

/** What a gutter entry says: the turn (a link to its prompt in the session when it is the user's), or "by you". */
function GutterEntry({ line, tipId }: { line: BlameLine; tipId: string }) {
  if (line.by === 'person') return <span className="text-neutral-600 dark:text-neutral-400">by you</span>;
  const label = line.turn !== undefined ? `Turn ${line.turn}` : 'Agent';
  const href = line.sessionId && line.messageId ? `/sessions/${encodeURIComponent(line.sessionId)}?m=${encodeURIComponent(line.messageId)}` : null;
  const tip = line.prompt ?? (line.sessionId ? `a session that is not yours (${line.sessionId})` : 'an agent commit without a session');
  return (
    <span className="group relative inline-block">
      {href ? (
        <Link href={href} aria-describedby={tipId} className="font-medium text-blue-700 hover:underline focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-blue-300">
          {label}
        </Link>
      ) : (
        // Focusable so the keyboard reaches the tooltip too.
        <span tabIndex={0} aria-describedby={tipId} className="font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600">
          {label}
        </span>
      )}
      <span
        role="tooltip"
        id={tipId}
        className="pointer-events-none absolute left-0 top-full z-20 mt-1 hidden w-72 max-w-[80vw] whitespace-pre-wrap break-words rounded-md border border-neutral-300 bg-white p-2 text-xs text-neutral-900 shadow-lg group-focus-within:block group-hover:block dark:border-neutral-700 dark:bg-neutral-900 dark:text-neutral-100"
      >
        {tip.length > 600 ? `${tip.slice(0, 600)}…` : tip}
        {'\n'}
        <span className="text-neutral-500 dark:text-neutral-400">
          {line.agent ?? 'agent'} · {shortSha(line.sha)}
        </span>
      </span>
    </span>
  );
}

/**
 * A project file with its blame gutter (DESIGN §14): per run of lines from one commit the turn
 * that wrote it, its prompt on hover or focus, a link to that message; "by you" for a person's
 * commit. Every row names its attribution for a screen reader; only a run's first shows it.
 */
export function BlameView({ blame }: { blame: Blame }) {
  if (blame.lines.length === 0) return <p className="text-sm text-neutral-600 dark:text-neutral-400">This file is empty.</p>;
  return (
    // No overflow clip here: it would cut the tooltips off; long lines wrap instead.
    <div className="rounded-md border border-neutral-200 dark:border-neutral-800">
      <table className="w-full table-fixed border-collapse font-mono text-xs" aria-label={`Blame of ${blame.path}`}>
        {/* The widths of a fixed layout: the sr-only header row does not set them. */}
        <colgroup>
          <col className="w-24" />
          <col className="w-12" />
          <col />
        </colgroup>
        <thead className="sr-only">
          <tr>
            <th scope="col">Written by</th>
            <th scope="col">Line</th>
            <th scope="col">Code</th>
          </tr>
        </thead>
        <tbody>
          {groupsOf(blame.lines).map((group, index) =>
            group.map((line, at) => (
              <tr key={line.line} className={at === 0 ? 'border-t border-neutral-200 dark:border-neutral-800' : undefined}>
                <td className={`w-24 px-2 align-top font-sans ${index % 2 ? 'bg-neutral-50 dark:bg-neutral-900' : 'bg-white dark:bg-neutral-950'}`}>
                  {at === 0 ? <GutterEntry line={line} tipId={`blame-tip-${line.line}`} /> : <span className="sr-only">{line.by === 'person' ? 'by you' : line.turn !== undefined ? `Turn ${line.turn}` : 'Agent'}</span>}
                </td>
                <td className="w-12 select-none px-2 text-right align-top text-neutral-500 dark:text-neutral-400">{line.line}</td>
                <td className="whitespace-pre-wrap break-all px-2 align-top text-neutral-900 dark:text-neutral-100">{line.text}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}

/** The project's files at HEAD, each opening its blame. */
export function ProjectFileList({ projectId, files, truncated }: { projectId: string; files: string[]; truncated: boolean }) {
  if (files.length === 0) return <p className="text-sm text-neutral-600 dark:text-neutral-400">No files committed yet.</p>;
  return (
    <nav aria-label="Files">
      <ul className="divide-y divide-neutral-200 rounded-md border border-neutral-200 font-mono text-sm dark:divide-neutral-800 dark:border-neutral-800">
        {files.map((file) => (
          <li key={file}>
            <Link
              href={`/projects/${encodeURIComponent(projectId)}/blame?path=${encodeURIComponent(file)}`}
              className="block break-all px-3 py-1.5 text-blue-700 hover:bg-neutral-50 focus:outline-none focus-visible:ring-2 focus-visible:ring-blue-600 dark:text-blue-300 dark:hover:bg-neutral-900"
            >
              {file}
            </Link>
          </li>
        ))}
      </ul>
      {truncated ? <p className="mt-2 text-xs text-neutral-600 dark:text-neutral-400">The first {files.length.toLocaleString('en')} files are listed.</p> : null}
    </nav>
  );
}
