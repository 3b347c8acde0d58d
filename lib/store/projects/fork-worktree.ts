import { lstat, readdir } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { ConflictError, ForbiddenPathError, InvalidInputError, PreconditionError } from '../errors.js';
import { processLocks } from '../../fs/keyed-lock.js';
import { GitCommandError, runGit } from '../git/git-cli.js';
import { isInside, isInsideAny, realpathOrNull, resolveInsideRoots } from './allowed-roots.js';

/**
 * The project side of "Fork from a turn" (DESIGN §14): a branch of the project at that turn's
 * project commit, checked out in a worktree of its own (or only the branch, the user's choice).
 * A worktree never lies inside the project's own tree: the folder's per-exchange commit would
 * take it in. The default is `<folder>.forks/<fork id>` beside the project folder.
 */

export type ForkCode = 'worktree' | 'branch';

/** The branch a fork's project commits go on. */
export function forkBranchName(forkId: string): string {
  return `entity-memory/fork-${forkId}`;
}

export function defaultForkWorktree(projectFolder: string, forkId: string): string {
  return join(dirname(projectFolder), `${basename(projectFolder)}.forks`, forkId);
}

/**
 * Where the worktree may go: absolute, inside the allowed roots, outside the project's tree, and
 * not an existing file or a folder with anything in it. Returns the path as it will be made.
 */
export async function checkForkWorktreePath(path: string, projectFolder: string, allowedRoots: readonly string[]): Promise<string> {
  if (!isAbsolute(path)) throw new InvalidInputError(`the worktree folder must be an absolute path: ${path}`);
  const real = await resolveInsideRoots(resolve(path), allowedRoots, { allowMissing: true });
  const project = (await realpathOrNull(projectFolder)) ?? projectFolder;
  if (isInside(real, project)) throw new InvalidInputError(`the worktree folder ${path} lies inside the project folder ${project}; pick one outside it`);
  const info = await lstat(real).catch(() => null);
  if (info && !info.isDirectory()) throw new ConflictError(`${path} exists and is not a folder`);
  if (info && (await readdir(real)).length > 0) throw new ConflictError(`${path} exists and is not empty`);
  return real;
}

/** The branch at `sha` in the project, and its worktree when `worktree` is given. */
export async function addForkCode(projectFolder: string, input: { sha: string; branch: string; worktree: string | null }): Promise<void> {
  const real = (await realpathOrNull(projectFolder)) ?? projectFolder;
  await processLocks.run(`project:${real}`, async () => {
    const exists = await runGit(real, ['rev-parse', '--verify', '--quiet', `refs/heads/${input.branch}`], { okCodes: [0, 1] });
    if (exists.code === 0) throw new ConflictError(`the project already has a branch ${input.branch}`);
    try {
      if (input.worktree) await runGit(real, ['worktree', 'add', '-b', input.branch, input.worktree, input.sha]);
      else await runGit(real, ['branch', input.branch, input.sha]);
    } catch (error) {
      if (error instanceof GitCommandError) throw new PreconditionError(`the project could not be forked at ${input.sha.slice(0, 7)}: ${error.stderr.trim().slice(0, 300)}`);
      throw error;
    }
  });
}

/**
 * Remove a fork's worktree (its uncommitted files go with it: the fork is being deleted); the
 * branch stays, so the fork's project commits are not lost. A worktree already gone is pruned.
 */
export async function removeForkWorktree(projectFolder: string, worktree: string, allowedRoots: readonly string[]): Promise<void> {
  const real = await realpathOrNull(projectFolder);
  if (!real) return;
  const target = await realpathOrNull(worktree);
  // Only a folder inside the allowed roots is ever removed, whatever meta.json says.
  if (target && !(await isInsideAny(target, allowedRoots))) throw new ForbiddenPathError(`${worktree} is outside the allowed roots`);
  await processLocks.run(`project:${real}`, async () => {
    if (target) await runGit(real, ['worktree', 'remove', '--force', '--force', target], { okCodes: [0, 128] });
    await runGit(real, ['worktree', 'prune'], { okCodes: [0, 128] });
  });
}
