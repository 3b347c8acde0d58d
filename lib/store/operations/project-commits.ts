import { NotFoundError, PreconditionError } from '../errors.js';
import { assertProjectId } from '../ids.js';
import { projectCommitPatch, projectCommits, projectCommitSummaries, type ProjectCommit } from '../projects/index.js';
import { secondsToMs } from '../time.js';
import type { CommitDiff } from '../repo/diff-parse.js';
import type { StoreContext } from '../session/store-context.js';

/** A project commit, and whether a turn's undo took it off the branch. */
export interface ListedProjectCommit extends ProjectCommit {
  undone: boolean;
}

/**
 * The agent commits of a project, newest first, bounded. The default project has none. Undone
 * ones are listed too, marked: undo resets the branch past them, so `git log` alone forgets them.
 */
export async function listProjectCommits(ctx: StoreContext, projectId: string, limit = 50): Promise<ListedProjectCommit[]> {
  const project = await ctx.projects.get(assertProjectId(projectId));
  if (project.isDefault) return [];
  const where = await ctx.projects.workdirState(project.id);
  if (where.state === 'missing') return [];
  const live = (await projectCommits(where.path, { limit })).map((commit) => ({ ...commit, undone: false }));
  const sessions = [...ctx.registry.values()].filter((entry) => entry.project_id === project.id).map((entry) => entry.id);
  const seen = new Set(live.map((commit) => commit.sha));
  const undone = (await ctx.recovery.undoneCommits(sessions)).filter((commit) => !seen.has(commit.sha)).slice(0, limit);
  if (undone.length === 0) return live;
  const details = await projectCommitSummaries(where.path, undone.map((commit) => commit.sha), { allowedRoots: ctx.allowedRoots }).catch(() => new Map<string, never>());
  const marked = undone.map((commit): ListedProjectCommit => {
    const detail = details.get(commit.sha);
    return {
      sha: commit.sha,
      message: detail?.message ?? '(no longer in the repository)',
      author: detail?.author ?? '',
      createdAt: detail?.createdAt ?? secondsToMs(commit.undoneAt ?? 0),
      sessionId: commit.sessionId,
      turn: commit.turn,
      undone: true,
    };
  });
  return [...live, ...marked].sort((a, b) => b.createdAt - a.createdAt).slice(0, limit);
}

/** One project commit's patch, from the project's own repo (provenance: what a turn changed). */
export async function projectCommitDiff(ctx: StoreContext, projectId: string, sha: string): Promise<CommitDiff> {
  const project = await ctx.projects.get(assertProjectId(projectId));
  if (project.isDefault) throw new NotFoundError(`unknown commit: ${sha}`);
  const where = await ctx.projects.workdirState(project.id);
  if (where.state === 'missing') throw new PreconditionError(`the folder of project ${project.name} is missing (${where.path})`);
  return projectCommitPatch(where.path, sha, { allowedRoots: ctx.allowedRoots });
}
