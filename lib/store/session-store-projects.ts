import type { StoreContext } from './session/store-context.js';
import { setExtraRoots } from './session/open-store.js';
import type { SessionRow } from './types.js';
import type { ProjectDetail, ProjectInspection, ProjectStore, ProjectSummary } from './projects/index.js';
import { listProjectsWithCounts } from './operations/list-projects.js';
import { relocateProject } from './operations/relocate-project.js';
import { unregisterProject } from './operations/unregister-project.js';
import { setProjectAutoCommit } from './operations/set-project-auto-commit.js';
import { setSessionProject } from './operations/bind-project.js';
import { setWorkdirs } from './operations/set-workdirs.js';
import { listProjectCommits, projectCommitDiff, type ListedProjectCommit } from './operations/project-commits.js';
import type { CommitDiff } from './operations/diff-commit.js';
import { resolveSessionAttachment, saveSessionAttachment } from './operations/session-attachments.js';
import type { AttachmentUpload, ResolvedAttachment, SavedAttachment } from './repo/attachments.js';

/**
 * SessionStore's project and attachment methods (entity-memory.zh.md §4), as its base class so
 * session-store.ts keeps to sessions, turns and branches. Each delegates to operations/.
 */
export abstract class ProjectMethods {
  protected constructor(protected readonly ctx: StoreContext) {}

  get projects(): ProjectStore {
    return this.ctx.projects;
  }
  /** Every project with its session count, counted in the registry (archived ones included). */
  async listProjects(): Promise<ProjectSummary[]> {
    return listProjectsWithCounts(this.ctx);
  }
  /** What adding this folder as a project would do (exists, a repository, already a project, what stops a git init). */
  async inspectProject(path: string): Promise<ProjectInspection> {
    return this.ctx.projects.inspect(path);
  }
  /** The workspace root first, then the roots an admin added. */
  get allowedRoots(): readonly string[] {
    return this.ctx.allowedRoots;
  }
  /** The roots an admin gave this user, besides the workspace: from the next call on. */
  setExtraRoots(roots: readonly string[]): void {
    setExtraRoots(this.ctx, roots);
  }
  async createProject(path: string, name?: string): Promise<ProjectDetail & { created: boolean }> {
    return this.ctx.projects.resolve(path, name);
  }
  async relocateProject(projectId: string, path: string, sessionId?: string): Promise<{ oldPath: string; path: string; nodeId: string | null }> {
    return relocateProject(this.ctx, projectId, path, sessionId);
  }
  async unregisterProject(projectId: string): Promise<{ id: string }> {
    return unregisterProject(this.ctx, projectId);
  }
  async setProjectAutoCommit(projectId: string, on: boolean): Promise<ProjectDetail> {
    return setProjectAutoCommit(this.ctx, projectId, on);
  }
  async setSessionProject(sessionId: string, projectId: string): Promise<SessionRow> {
    return setSessionProject(this.ctx, sessionId, projectId);
  }
  async setWorkdirs(sessionId: string, workdirs: string[]): Promise<SessionRow> {
    return setWorkdirs(this.ctx, sessionId, workdirs);
  }
  async projectCommits(projectId: string, limit = 50): Promise<ListedProjectCommit[]> {
    return listProjectCommits(this.ctx, projectId, limit);
  }
  async projectCommitDiff(projectId: string, sha: string): Promise<CommitDiff> {
    return projectCommitDiff(this.ctx, projectId, sha);
  }
  async saveAttachment(sessionId: string, upload: AttachmentUpload): Promise<SavedAttachment> {
    return saveSessionAttachment(this.ctx, sessionId, upload);
  }
  async resolveAttachment(sessionId: string, name: string): Promise<ResolvedAttachment> {
    return resolveSessionAttachment(this.ctx, sessionId, name);
  }
}
