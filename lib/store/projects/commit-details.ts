import { NotFoundError } from '../errors.js';
import { assertCommitId } from '../ids.js';
import { pairBlocks, parseNameStatus, splitPatch, type CommitDiff, type DiffStatus } from '../repo/diff-parse.js';
import { runGit, splitNul } from '../git/git-cli.js';
import { assertRepoSafe, locateGitDirs } from '../git/repo-safety.js';
import { secondsToMs } from '../time.js';

/**
 * The project commits the timeline shows beside its turns: subject, author, time and the files
 * changed, for a page of shas in two git processes (not two per turn); and one commit's patch.
 */

export interface ProjectCommitSummary {
  sha: string;
  /** the subject line */
  message: string;
  author: string;
  createdAt: number;
  files: Array<{ path: string; status: DiffStatus }>;
}

const FIELD = '\x1f';
const RECORD = '\x1e';

/** Which of `shas` are commits in the repo at `projectPath` (undone or foreign ones may not be). */
async function existingCommits(projectPath: string, shas: string[]): Promise<string[]> {
  const { stdout } = await runGit(projectPath, ['cat-file', '--batch-check=%(objectname) %(objecttype)'], { input: `${shas.join('\n')}\n` });
  const found = new Set<string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const [sha, type] = line.split(' ');
    if (sha && type === 'commit') found.add(sha);
  }
  return shas.filter((sha) => found.has(sha));
}

/** Summaries by sha; a sha the repo does not hold (or a folder that is no repo) is left out. */
export async function projectCommitSummaries(projectPath: string, shas: readonly string[], options: { allowedRoots?: readonly string[] } = {}): Promise<Map<string, ProjectCommitSummary>> {
  const out = new Map<string, ProjectCommitSummary>();
  const wanted = [...new Set(shas.map((sha) => assertCommitId(sha)))];
  if (wanted.length === 0 || !(await locateGitDirs(projectPath))) return out;
  await assertRepoSafe(projectPath, options);
  const present = await existingCommits(projectPath, wanted);
  if (present.length === 0) return out;
  const { stdout } = await runGit(projectPath, [
    '-c', 'core.quotePath=false',
    'log', '--no-walk=unsorted', '--no-renames', '-z', '--name-status',
    `--format=${RECORD}%H${FIELD}%an${FIELD}%ct${FIELD}%s${FIELD}`,
    ...present, '--',
  ]);
  for (const record of stdout.toString('utf8').split(RECORD)) {
    const end = record.lastIndexOf(FIELD);
    if (end < 0) continue;
    const [sha = '', author = '', time = '0', subject = ''] = record.slice(0, end).split(FIELD);
    const names = record.slice(end + 1).replace(/^\0?\n?/, '');
    const files = parseNameStatus(splitNul(Buffer.from(names, 'utf8')));
    out.set(sha, { sha, message: subject, author, createdAt: secondsToMs(Number(time)), files });
  }
  return out;
}

/** One project commit's changes with their unified patches, against its first parent (a root commit against nothing). */
export async function projectCommitPatch(projectPath: string, sha: string, options: { allowedRoots?: readonly string[] } = {}): Promise<CommitDiff> {
  assertCommitId(sha);
  if (!(await locateGitDirs(projectPath))) throw new NotFoundError(`unknown commit: ${sha}`);
  await assertRepoSafe(projectPath, options);
  if ((await existingCommits(projectPath, [sha])).length === 0) throw new NotFoundError(`unknown commit: ${sha}`);
  const common = ['-r', '--root', '--no-commit-id', '--no-renames', '--no-ext-diff', '--no-textconv', '-m', '--first-parent'];
  const [names, patch] = await Promise.all([
    runGit(projectPath, ['diff-tree', ...common, '--name-status', '-z', sha]),
    runGit(projectPath, ['-c', 'core.quotePath=false', 'diff-tree', ...common, '-p', '--no-color', sha]),
  ]);
  return { files: pairBlocks(parseNameStatus(splitNul(names.stdout)), splitPatch(patch.stdout.toString('utf8'))) };
}
