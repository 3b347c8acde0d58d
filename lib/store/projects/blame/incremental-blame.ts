import { runGit } from '../../git/git-cli.js';
import type { CachedBlame } from './blame-cache.js';
import { advanceBlame, parsePathDiff, UnexpectedDiff, type PathCommitDiff } from './blame-diff.js';
import { agentCommit } from './commit-info.js';
import type { GitBlameCommit } from './git-blame.js';

/**
 * The blame at `rev` from a cached blame at an ancestor, in one git process: every commit
 * between them (`--full-history --sparse` lists those that did not touch the path too, so a
 * merge or a gap in the chain is seen), with the `-U0` diff of the path and who made it.
 * Null when it is not a straight line of single-parent commits from the cached one, or the
 * diff holds anything blame-diff.ts does not expect: the caller runs the full `git blame` (so
 * it does when the answer's line count is not the file's).
 */

/** Past this many commits since the cached blame, a full blame is as cheap: not worth the log. */
export const MAX_INCREMENTAL_COMMITS = 1_000;

const RECORD = '\x1e';
const FIELD = '\x1f';

/**
 * The diff options must be the ones `git blame` uses, so that both find the same added lines:
 * Myers with the indent heuristic (git's defaults, stated so a repo's `diff.algorithm` cannot
 * change one and not the other; gitBlame passes the same to blame).
 */
export const BLAME_DIFF_OPTIONS: readonly string[] = ['--diff-algorithm=myers', '--indent-heuristic'];

export async function incrementalBlame(cwd: string, file: string, base: CachedBlame, rev: string): Promise<CachedBlame | null> {
  const { stdout, code } = await runGit(
    cwd,
    [
      'log', '--reverse', '--full-history', '--sparse', `--max-count=${MAX_INCREMENTAL_COMMITS}`,
      '-p', '-U0', '--no-color', '--no-renames', ...BLAME_DIFF_OPTIONS,
      `--format=${RECORD}%H %P${FIELD}%aN${FIELD}%aE${FIELD}%(trailers:only,unfold)${FIELD}`,
      `${base.rev}..${rev}`, '--', `:(literal)${file}`,
    ],
    { okCodes: [0, 128] },
  );
  if (code !== 0) return null;
  try {
    const { diffs, commits } = parseLog(stdout.toString('utf8'));
    if (diffs.length === 0 || diffs[diffs.length - 1]!.sha !== rev) return null;
    const lines = advanceBlame(base, diffs);
    const known = new Map([...base.commits, ...commits]);
    const kept = new Map<string, GitBlameCommit>();
    for (const sha of lines) if (!kept.has(sha)) kept.set(sha, known.get(sha)!);
    return { rev, lines, commits: kept };
  } catch (error) {
    if (error instanceof UnexpectedDiff) return null;
    throw error;
  }
}

function parseLog(output: string): { diffs: PathCommitDiff[]; commits: Map<string, GitBlameCommit> } {
  const diffs: PathCommitDiff[] = [];
  const commits = new Map<string, GitBlameCommit>();
  for (const record of output.split(RECORD).slice(1)) {
    const [ids = '', name = '', email = '', trailers = '', ...rest] = record.split(FIELD);
    const [sha = '', ...parents] = ids.trim().split(' ');
    if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new UnexpectedDiff('a log record without a commit');
    diffs.push({ sha, parents: parents.filter(Boolean), hunks: parsePathDiff(rest.join(FIELD)) });
    commits.set(sha, agentCommit(sha, name, email, trailers));
  }
  return { diffs, commits };
}
