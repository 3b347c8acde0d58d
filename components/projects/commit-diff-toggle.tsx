'use client';

import { ChevronDown, ChevronRight } from 'lucide-react';
import { useState } from 'react';
import { ProjectCommitDiff } from '@/components/timeline/project-commit-diff';

/** "Show diff" under a project commit: the patch is fetched when it is first opened. */
export function CommitDiffToggle({ projectId, sha }: { projectId: string; sha: string }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="space-y-2">
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen((value) => !value)}
        className="inline-flex items-center gap-1 rounded-md text-xs text-blue-600 hover:underline focus-visible:ring-2 focus-visible:ring-blue-600 focus-visible:outline-none dark:text-blue-400"
      >
        {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />}
        {open ? 'Hide diff' : 'Show diff'}
      </button>
      {open ? <ProjectCommitDiff projectId={projectId} sha={sha} /> : null}
    </div>
  );
}
