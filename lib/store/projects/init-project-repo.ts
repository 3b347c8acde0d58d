import { lstat, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PreconditionError } from '../errors.js';
import { BASELINE_IDENTITY } from './commit-message.js';
import { commitTree, moveHead } from './commit-plumbing.js';
import { runGit, splitNul } from '../git/git-cli.js';
import { processLocks } from '../../fs/keyed-lock.js';
import { assertRepoSafe, locateGitDirs } from '../git/repo-safety.js';

/**
 * A project folder gets a repository (entity-memory.zh.md §4.1): reuse its `.git`, or
 * `git init` it — unless a dependency or build folder would be swept into the first commit.
 */

/** Top-level folders that make an automatic `git init` a bad idea unless .gitignore excludes them. */
const DEPENDENCY_FOLDERS: readonly string[] = Object.freeze([
  'node_modules', 'bower_components', '.venv', 'venv', 'env', '__pycache__', '.tox',
  'target', 'build', 'dist', 'out', '.next', '.nuxt', '.gradle', 'vendor',
]);

const BASELINE_MESSAGE = 'openprogram: baseline (pre-existing files)\n';

export interface EnsureRepoResult {
  /** True when this call ran `git init`. */
  initialized: boolean;
  /** The baseline commit of the files that were already there (null: the folder was empty or reused). */
  baseline: string | null;
}

/** Dependency folders present in `real` that no .gitignore there excludes. */
export async function unignoredDependencyFolders(real: string): Promise<string[]> {
  const present: string[] = [];
  for (const name of DEPENDENCY_FOLDERS) {
    const info = await lstat(join(real, name)).catch(() => null);
    if (info?.isDirectory()) present.push(name);
  }
  if (present.length === 0) return [];
  // The folder has no repository yet, so ask a throwaway one that uses it as its work tree.
  const scratch = await mkdtemp(join(tmpdir(), 'op-ignore-check-'));
  try {
    await runGit(scratch, ['init', '-q', '--bare', scratch]);
    const res = await runGit(real, ['check-ignore', '-z', '--stdin'], {
      env: { GIT_DIR: scratch, GIT_WORK_TREE: real },
      input: present.map((p) => `${p}/\0`).join(''),
      okCodes: [0, 1],
    });
    const ignored = new Set(splitNul(res.stdout).map((p) => p.replace(/\/$/, '')));
    return present.filter((p) => !ignored.has(p));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Make sure `real` (an existing directory, already checked against the allowed roots) is a git
 * repository that is safe to drive. A new repository gets one baseline commit of the files that
 * were already there, by `Entity Memory <openprogram@local>`, so that later agent commits are the
 * agent's changes only and files the user already had do not count as dirty.
 */
export async function ensureProjectRepo(real: string, options: { allowedRoots?: readonly string[] } = {}): Promise<EnsureRepoResult> {
  return processLocks.run(`project:${real}`, async () => {
    if (await locateGitDirs(real)) {
      await assertRepoSafe(real, options.allowedRoots ? { allowedRoots: options.allowedRoots } : {});
      return { initialized: false, baseline: null };
    }
    const blockers = await unignoredDependencyFolders(real);
    if (blockers.length > 0) {
      throw new PreconditionError(
        `refusing to start a git repository in ${real}: it holds ${blockers.join(', ')}, which a .gitignore does not exclude ` +
          'and which would be swept into the first commit. Add them to .gitignore or run git init there yourself, then try again.',
      );
    }
    await runGit(real, ['init', '-q', '--initial-branch=main', real]);
    await runGit(real, ['add', '-A']);
    const tree = (await runGit(real, ['write-tree'])).stdout.toString('utf8').trim();
    const listing = await runGit(real, ['ls-tree', tree]);
    if (listing.stdout.length === 0) return { initialized: true, baseline: null };
    const sha = await commitTree(real, {
      tree,
      parent: null,
      message: BASELINE_MESSAGE,
      author: BASELINE_IDENTITY,
      committer: BASELINE_IDENTITY,
    });
    await moveHead(real, sha, null, 'openprogram: baseline');
    return { initialized: true, baseline: sha };
  });
}
