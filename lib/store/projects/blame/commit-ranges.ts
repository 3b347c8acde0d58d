import { runGit } from '../../git/git-cli.js';
import { assertCommitId } from '../../ids.js';
import { modelOfAgentName } from './commit-info.js';
import { projectFolder, type ProjectLookup } from './project-files.js';

/**
 * What each project commit added, as line ranges of the files it left (the new side of its
 * diff against its first parent, no context): the ranges an Agent Trace record attributes.
 * One `git log --no-walk -p -U0` for all of them.
 */

export interface CommitRanges {
  sha: string;
  /** the commit time, milliseconds */
  createdAt: number;
  /** the model an agent commit names, else its author */
  agent: string;
  files: Array<{ path: string; ranges: Array<{ start_line: number; end_line: number }> }>;
}

const RECORD = '\x1e';

export async function projectCommitRanges(sources: ProjectLookup, projectId: string, shas: readonly string[]): Promise<CommitRanges[]> {
  const wanted = [...new Set(shas.map((sha) => assertCommitId(sha)))];
  if (wanted.length === 0) return [];
  const { path } = await projectFolder(sources, projectId);
  // Undone commits may be gone: ask only for those the repo still has.
  const check = await runGit(path, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${wanted.join('\n')}\n` });
  const present = check.stdout.toString('utf8').split('\n').filter((line) => line.endsWith(' commit')).map((line) => line.split(' ')[0]!);
  if (present.length === 0) return [];
  const { stdout } = await runGit(path, ['-c', 'core.quotePath=false', 'log', '--no-walk=unsorted', '--stdin', '-p', '-U0', '--no-color', '--no-renames', '--first-parent', '-m', `--format=${RECORD}%H %ct %an`], {
    input: `${present.join('\n')}\n`,
  });
  return stdout.toString('utf8').split(RECORD).filter(Boolean).map(parseCommit);
}

function parseCommit(record: string): CommitRanges {
  const [header = '', ...rows] = record.split('\n');
  const [sha = '', time = '0', ...author] = header.split(' ');
  const files: CommitRanges['files'] = [];
  let current: CommitRanges['files'][number] | null = null;
  for (const row of rows) {
    if (row.startsWith('+++ ')) {
      // `+++ /dev/null` is a deletion: nothing of it is left to attribute.
      current = row === '+++ /dev/null' ? null : { path: row.slice(6), ranges: [] };
      if (current) files.push(current);
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(row);
    if (!hunk || !current) continue;
    const start = Number(hunk[1]);
    const count = hunk[2] === undefined ? 1 : Number(hunk[2]);
    if (count > 0) current.ranges.push({ start_line: start, end_line: start + count - 1 });
  }
  return { sha, createdAt: Number(time) * 1000, agent: modelOfAgentName(author.join(' ')), files: files.filter((file) => file.ranges.length > 0) };
}
