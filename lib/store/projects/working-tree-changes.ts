import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { runGit, splitNul } from '../git/git-cli.js';
import { fieldAfter } from './working-tree-status.js';

/**
 * What an agent's exchange left in a project folder (DESIGN §14), from one `git status`: the
 * paths whose working-tree file differs from the index (new untracked files included, ignored
 * ones left out, as `git add -A` would take them) and whether the user staged anything. Only
 * those paths are then staged, so the cost of the commit after it grows with the change, not
 * with the tree: a second walk of 10,000 files by `git add -A` and two reads of HEAD's whole tree
 * by `diff-index` were most of an exchange's project commit.
 */

export interface WorkingTreeChanges {
  /** The index differs from HEAD (the user ran git add) or holds a conflict: it is theirs. */
  staged: boolean;
  /** Changed, new and deleted paths (relative, `/`), in git's order. */
  changed: string[];
  /** Those of `changed` that are gone from the working tree. */
  deleted: Set<string>;
}

export async function readWorkingTreeChanges(real: string): Promise<WorkingTreeChanges> {
  const { stdout } = await runGit(real, ['status', '--porcelain=v2', '-z', '--untracked-files=all', '--no-renames'], {
    // Read-only: no refresh written to the user's index, no index.lock taken from under their git.
    env: { GIT_OPTIONAL_LOCKS: '0' },
  });
  const fields = splitNul(stdout);
  const changes: WorkingTreeChanges = { staged: false, changed: [], deleted: new Set() };
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] ?? '';
    const kind = entry[0];
    if (kind === '?') {
      // A nested repository is named `dir/`; update-index takes it without the slash (as a gitlink).
      changes.changed.push(entry.slice(2).replace(/\/+$/, ''));
    } else if (kind === 'u') {
      changes.staged = true;
    } else if (kind === '1' || kind === '2') {
      const path = fieldAfter(entry, kind === '1' ? 8 : 9);
      if (kind === '2') i++; // the original path of a rename
      if (entry[2] !== '.') changes.staged = true;
      const worktree = entry[3];
      if (worktree !== '.') {
        changes.changed.push(path);
        if (worktree === 'D') changes.deleted.add(path);
      }
    }
  }
  return changes;
}

/**
 * The changed paths whose file was modified after `cutMs`: written by tools still at work, left
 * for a later commit. A deletion carries no time and is never held back.
 */
export async function writtenAfter(real: string, changes: WorkingTreeChanges, cutMs: number): Promise<Set<string>> {
  const late = new Set<string>();
  for (const path of changes.changed) {
    if (changes.deleted.has(path)) continue;
    const info = await lstat(join(real, path)).catch(() => null);
    if (info && info.mtimeMs > cutMs) late.add(path);
  }
  return late;
}

/**
 * Stage exactly these paths in a private index: their current content, or their removal when
 * gone. update-index never looks inside a submodule (a gitlink gets its checked-out HEAD), so
 * none of its config can run, and `--replace` lets a file become a folder and back.
 */
export async function stageChangedPaths(real: string, indexFile: string, paths: readonly string[]): Promise<void> {
  await runGit(real, ['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], {
    env: { GIT_INDEX_FILE: indexFile },
    input: paths.map((path) => `${path}\0`).join(''),
  });
}
