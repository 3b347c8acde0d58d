import { assertProjectId } from '../ids.js';
import type { ProjectDetail } from '../projects/index.js';
import type { StoreContext } from '../session/store-context.js';

/** Whether a project's turns end with an agent commit in its own repo (entity-memory.zh.md §4). */
export function setProjectAutoCommit(ctx: StoreContext, projectId: string, on: boolean): Promise<ProjectDetail> {
  return ctx.projects.setAutoCommit(assertProjectId(projectId), on);
}
