import type { ProjectSummary } from '../projects/index.js';
import type { StoreContext } from '../session/store-context.js';

/**
 * project.list: the projects with how many sessions each holds, counted in the registry, the
 * truth about which session is where. projects.json's `session_ids` only ever lists sessions
 * bound to a project after they were created, so Home, whose sessions are never bound, read 0.
 */
export async function listProjectsWithCounts(ctx: StoreContext): Promise<ProjectSummary[]> {
  const counts = new Map<string, number>();
  for (const entry of ctx.registry.values()) counts.set(entry.project_id, (counts.get(entry.project_id) ?? 0) + 1);
  return (await ctx.projects.list()).map((project) => ({ ...project, sessionCount: counts.get(project.id) ?? 0 }));
}
