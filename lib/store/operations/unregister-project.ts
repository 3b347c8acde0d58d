import { assertProjectId } from '../ids.js';
import type { StoreContext } from '../session/store-context.js';

/** Registry only: the project's git history and its sessions stay as they are. */
export async function unregisterProject(ctx: StoreContext, projectId: string): Promise<{ id: string }> {
  const removed = await ctx.projects.unregister(assertProjectId(projectId));
  return { id: removed.id };
}
