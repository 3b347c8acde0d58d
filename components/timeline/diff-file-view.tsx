'use client';

import { useMemo } from 'react';
import { Diff, Hunk, parseDiff } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import './diff-theme.css';

const STATUS_WORDS: Record<string, string> = { added: 'added', modified: 'modified', deleted: 'deleted', typechanged: 'type changed' };

/** One file of a commit: git's unified patch parsed by react-diff-view and drawn as a table. */
export function DiffFileView({ path, status, patch, truncated }: { path: string; status: string; patch: string; truncated: boolean }) {
  const files = useMemo(() => {
    try {
      return parseDiff(patch, { nearbySequences: 'zip' });
    } catch {
      return [];
    }
  }, [patch]);
  const hunks = files.flatMap((file) => file.hunks);
  return (
    <figure className="overflow-hidden rounded-md border border-neutral-200 dark:border-neutral-800">
      <figcaption className="flex items-center justify-between gap-2 border-b border-neutral-200 bg-neutral-50 px-3 py-1.5 text-xs dark:border-neutral-800 dark:bg-neutral-900">
        <code className="truncate font-mono">{path}</code>
        <span className="shrink-0 text-neutral-500 dark:text-neutral-400">{STATUS_WORDS[status] ?? status}</span>
      </figcaption>
      {hunks.length > 0 ? (
        <div className="diff-theme overflow-x-auto text-xs">
          <Diff viewType="unified" diffType={files[0]!.type} hunks={hunks}>
            {(items) => items.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
          </Diff>
        </div>
      ) : (
        <p className="px-3 py-2 text-xs text-neutral-500 dark:text-neutral-400">{/Binary files/.test(patch) ? 'Binary file' : 'No textual change'}</p>
      )}
      {truncated ? <p className="px-3 py-1 text-xs text-neutral-500">The patch is cut here (too long to show).</p> : null}
    </figure>
  );
}
