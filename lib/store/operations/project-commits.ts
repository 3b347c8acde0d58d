import { NotFoundError, PreconditionError } from '../errors.js';
import { assertProjectId } from '../ids.js';
import { projectCommitPatch, projectCommits, type ProjectCommit } from '../projects/index.js';
import type { CommitDiff } from '../repo/diff-parse.js';
import type { StoreContext } from '../session/store-context.js';

/** The agent commits of a project, newest first, bounded. The default project has none. */
export async function listProjectCommits(ctx: StoreContext, projectId: string, limit = 50): Promise<ProjectCommit[]> {
  const project = await ctx.projects.get(assertProjectId(projectId));
  if (project.isDefault) return [];
  const where = await ctx.projects.workdirState(project.id);
  if (where.state === 'missing') return [];
  return projectCommits(where.path, { limit });
}

/** One project commit's patch, from the project's own repo (provenance: what a turn changed). */
export async function projectCommitDiff(ctx: StoreContext, projectId: string, sha: string): Promise<CommitDiff> {
  const project = await ctx.projects.get(assertProjectId(projectId));
  if (project.isDefault) throw new NotFoundError(`unknown commit: ${sha}`);
  const where = await ctx.projects.workdirState(project.id);
  if (where.state === 'missing') throw new PreconditionError(`the folder of project ${project.name} is missing (${where.path})`);
  return projectCommitPatch(where.path, sha, { allowedRoots: ctx.allowedRoots });
}
