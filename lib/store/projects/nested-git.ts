import { lstat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { runGit, splitNul } from '../git/git-cli.js';
import { readWorkingTreeStatus } from './working-tree-status.js';

/** How many paths of one turn are looked at: a bound on the lstat calls of a finalize. */
const MAX_PATHS = 10_000;
/** How many findings a turn keeps (its commit's trailers). */
export const MAX_NESTED_GIT_FINDINGS = 20;
/** The session-commit trailer naming one finding, its path as JSON. */
export const NESTED_GIT_TRAILER = 'OpenProgram-Nested-Git';

/**
 * The git metadata a turn put into the project: a `.gitmodules` it wrote, and a `.git` entry
 * (a nested repository, or a gitfile pointing at one) in a folder it wrote into, unless HEAD
 * already has that folder as a submodule. Our git runs nothing there, but the user's own git in
 * that folder would take its config and hooks. `paths` are project-relative (`/`).
 */
export async function findNestedGit(projectRoot: string, paths: readonly string[], head: string | null): Promise<string[]> {
  const found = new Set<string>();
  const folders = new Set<string>();
  for (const given of paths.slice(0, MAX_PATHS)) {
    const path = given.replace(/\/+$/, ''); // git status names a nested repository `dir/`
    if (posix.basename(path).toLowerCase() === '.gitmodules') found.add(path);
    // The path itself (a folder the agent created) and every folder above it, not the project root.
    for (let folder = path; folder !== '.' && folder !== '' && folders.size < MAX_PATHS; folder = posix.dirname(folder)) {
      if (folders.has(folder)) break;
      folders.add(folder);
    }
  }
  const withGit: string[] = [];
  for (const folder of folders) {
    if (await lstat(join(projectRoot, folder, '.git')).then(() => true, () => false)) withGit.push(folder);
  }
  const submodules = head && withGit.length > 0 ? await submodulesAt(projectRoot, head, withGit) : new Set<string>();
  for (const folder of withGit) if (!submodules.has(folder)) found.add(`${folder}/.git`);
  return [...found].sort().slice(0, MAX_NESTED_GIT_FINDINGS);
}

/** Which of `folders` HEAD records as submodules (gitlinks): the user's own, not the turn's. */
async function submodulesAt(projectRoot: string, head: string, folders: string[]): Promise<Set<string>> {
  try {
    const { stdout } = await runGit(projectRoot, ['ls-tree', '-z', head, '--', ...folders]);
    const links = new Set<string>();
    for (const line of splitNul(stdout)) {
      // `mode type sha\tpath`
      const tab = line.indexOf('\t');
      if (line.startsWith('160000 ')) links.add(line.slice(tab + 1));
    }
    return links;
  } catch {
    return new Set();
  }
}

/**
 * What differs from HEAD now and did not at the turn's start: the turn's changes when it did not
 * name its writes and made no commit that would list them. Nothing when git cannot tell.
 */
export async function changedSinceBegin(projectRoot: string, dirtyAtBegin: ReadonlySet<string>): Promise<string[]> {
  try {
    const { dirty } = await readWorkingTreeStatus(projectRoot);
    return [...dirty].filter((path) => !dirtyAtBegin.has(path));
  } catch {
    return [];
  }
}
