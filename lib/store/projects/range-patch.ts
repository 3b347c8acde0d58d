import { runGit, splitNul } from '../git/git-cli.js';
import { assertRepoSafe, locateGitDirs } from '../git/repo-safety.js';
import { EMPTY_TREE_OID } from '../repo/git-objects.js';
import { pairBlocks, parseNameStatus, splitPatch, type CommitDiff } from '../repo/diff-parse.js';

/**
 * The tree before `sha`: its first parent, or the empty tree for a root commit; null when the
 * repository does not hold `sha` (an undone commit git has since pruned, a foreign folder).
 */
export async function treeBefore(projectPath: string, sha: string): Promise<string | null> {
  const { stdout, code } = await runGit(projectPath, ['rev-list', '--parents', '-n', '1', sha, '--'], { okCodes: [0, 128] });
  if (code !== 0) return null;
  const [, parent] = stdout.toString('utf8').trim().split(' ');
  return parent ?? EMPTY_TREE_OID;
}

/**
 * The unified patch per file from one revision's tree to another's, in two git processes; null
 * when the folder is no repository or does not hold both revisions.
 */
export async function projectRangePatch(projectPath: string, from: string, to: string, options: { allowedRoots?: readonly string[] } = {}): Promise<CommitDiff | null> {
  if (!(await locateGitDirs(projectPath))) return null;
  await assertRepoSafe(projectPath, options);
  const common = ['-r', '--no-commit-id', '--no-renames', '--no-ext-diff', '--no-textconv'];
  const [names, patch] = await Promise.all([
    runGit(projectPath, ['diff-tree', ...common, '--name-status', '-z', from, to, '--'], { okCodes: [0, 128] }),
    runGit(projectPath, ['-c', 'core.quotePath=false', 'diff-tree', ...common, '-p', '--no-color', from, to, '--'], { okCodes: [0, 128] }),
  ]);
  if (names.code !== 0 || patch.code !== 0) return null;
  return { files: pairBlocks(parseNameStatus(splitNul(names.stdout)), splitPatch(patch.stdout.toString('utf8'))) };
}
