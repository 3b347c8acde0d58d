import { stat } from 'node:fs/promises';
import { isInsideAny, realpathOrNull } from '../../fs/real-path.js';
import { ForbiddenPathError, NotFoundError } from '../errors.js';
import { removeForkWorktree, type WorkdirState } from '../projects/index.js';
import type { ForkInfo, SessionMeta } from '../types.js';
import type { StoreContext } from './store-context.js';
import { openSession } from './session-access.js';

/** The meta.json field of a session forked from another one's turn (DESIGN §14). */
export const FORK_KEY = 'fork';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function forkOf(meta: SessionMeta): ForkInfo | null {
  const value = meta[FORK_KEY];
  if (!isRecord(value) || typeof value['of'] !== 'string' || typeof value['turn'] !== 'number') return null;
  const text = (key: string): string | null => (typeof value[key] === 'string' ? (value[key] as string) : null);
  return { of: value['of'], turn: value['turn'], projectCommit: text('project_commit'), branch: text('branch'), worktree: text('worktree'), projectFolder: text('project_folder') };
}

export function forkMeta(info: ForkInfo): Record<string, unknown> {
  return { of: info.of, turn: info.turn, project_commit: info.projectCommit, branch: info.branch, worktree: info.worktree, project_folder: info.projectFolder };
}

/**
 * Where a session's turns run and commit: a fork's own worktree, else its project's folder. A
 * worktree gone is `missing` (never replaced by the project folder, whose branch is another).
 */
export async function sessionWorkdirState(ctx: StoreContext, meta: SessionMeta, projectId: string): Promise<WorkdirState> {
  const worktree = forkOf(meta)?.worktree;
  if (!worktree) return ctx.projects.workdirState(projectId);
  const real = await realpathOrNull(worktree);
  if (!real || !(await stat(real).then((info) => info.isDirectory(), () => false))) return { state: 'missing', path: worktree };
  if (!(await isInsideAny(real, ctx.allowedRoots))) throw new ForbiddenPathError(`the fork's worktree ${worktree} now resolves to ${real}, outside the allowed roots`);
  return { state: 'ok', path: real };
}

/**
 * A deleted fork's worktree goes with it (delete-session); its branch and commits stay. A
 * worktree that now resolves outside the allowed roots is left where it is, and the fork is
 * deleted all the same: nothing outside the roots is ever removed.
 */
export async function removeForkCode(ctx: StoreContext, sessionId: string): Promise<void> {
  let meta: SessionMeta;
  try {
    meta = openSession(ctx, sessionId).meta;
  } catch (error) {
    if (error instanceof NotFoundError) return; // a listed session without its repo has no worktree to remove
    throw error;
  }
  const fork = forkOf(meta);
  if (!fork?.worktree || !fork.projectFolder) return;
  await removeForkWorktree(fork.projectFolder, fork.worktree, ctx.allowedRoots).catch((error: unknown) => {
    if (!(error instanceof ForbiddenPathError)) throw error;
  });
}
