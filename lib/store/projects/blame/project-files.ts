import { NotFoundError, PreconditionError } from '../../errors.js';
import { runGit, splitNul } from '../../git/git-cli.js';
import { assertRepoSafe, locateGitDirs } from '../../git/repo-safety.js';
import { assertProjectId } from '../../ids.js';
import { resolveCommit } from './git-blame.js';

/** The file view's list (DESIGN §14): the files of a project at a revision, for blame to open. */

/** A longer list is cut (and says so): the view is for picking a file, `git ls-files` is for the rest. */
export const MAX_LISTED_FILES = 5_000;

export interface ProjectFiles {
  projectId: string;
  rev: string;
  files: string[];
  truncated: boolean;
}

/** What a project lookup needs from the user's store. */
export interface ProjectLookup {
  readonly allowedRoots: readonly string[];
  listProjects(): Promise<Array<{ id: string; path: string; isDefault: boolean; pathMissing: boolean }>>;
}

/** The folder of one of the user's projects with a history: NOT_FOUND for someone else's, a refusal for Home or a missing folder. */
export async function projectFolder(sources: ProjectLookup, id: string): Promise<{ projectId: string; path: string }> {
  const projectId = assertProjectId(id);
  const project = (await sources.listProjects()).find((candidate) => candidate.id === projectId);
  if (!project) throw new NotFoundError(`unknown project: ${projectId}`);
  if (project.isDefault) throw new PreconditionError('Home has no project history to blame: add the folder as a project');
  if (project.pathMissing) throw new PreconditionError(`the folder of project ${projectId} is missing (${project.path})`);
  if (!(await locateGitDirs(project.path))) throw new PreconditionError(`the project folder ${project.path} is not a git repository`);
  await assertRepoSafe(project.path, { allowedRoots: sources.allowedRoots });
  return { projectId, path: project.path };
}

export async function projectFiles(sources: ProjectLookup, input: { projectId: string; rev?: string }): Promise<ProjectFiles> {
  const { projectId, path } = await projectFolder(sources, input.projectId);
  const rev = await resolveCommit(path, input.rev ?? 'HEAD');
  const { stdout } = await runGit(path, ['-c', 'core.quotePath=false', 'ls-tree', '-r', '-z', '--name-only', rev]);
  const files = splitNul(stdout);
  return { projectId, rev, files: files.slice(0, MAX_LISTED_FILES), truncated: files.length > MAX_LISTED_FILES };
}
