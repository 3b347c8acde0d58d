import { NotFoundError } from '../errors.js';
import { assertCommitId } from '../ids.js';
import { runGit, splitNul } from '../git/git-cli.js';
import { EMPTY_TREE_OID } from '../repo/git-objects.js';
import { readCommitObject } from '../repo/session-git.js';
import type { StoreContext } from '../session/store-context.js';
import { withSession } from '../session/session-access.js';
import { pairBlocks, parseNameStatus, splitPatch, type CommitDiff } from '../repo/diff-parse.js';

export type { CommitDiff, CommitDiffFile, DiffStatus } from '../repo/diff-parse.js';
export { MAX_PATCH_CHARS } from '../repo/diff-parse.js';

/**
 * What one turn commit of a session changed, file by file, against its first parent (the root
 * commit against the empty tree). The session repo is plain git, read with the hardened git CLI.
 */
export function diffCommit(ctx: StoreContext, sessionId: string, sha: string): Promise<CommitDiff> {
  assertCommitId(sha);
  return withSession(ctx, sessionId, async (session) => {
    let parents: string[];
    try {
      parents = (await readCommitObject(session.dir, sha)).parents;
    } catch {
      throw new NotFoundError(`unknown commit: ${sha}`);
    }
    const base = parents[0] ?? EMPTY_TREE_OID;
    const common = ['-r', '--no-commit-id', '--no-renames', '--no-ext-diff', '--no-textconv'];
    const [names, patch] = await Promise.all([
      runGit(session.dir, ['diff-tree', ...common, '--name-status', '-z', base, sha]),
      runGit(session.dir, ['-c', 'core.quotePath=false', 'diff-tree', ...common, '-p', '--no-color', base, sha]),
    ]);
    const changed = parseNameStatus(splitNul(names.stdout));
    const blocks = splitPatch(patch.stdout.toString('utf8'));
    return { files: pairBlocks(changed, blocks) };
  });
}
