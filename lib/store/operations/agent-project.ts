import { isAbsolute } from 'node:path';
import { isInside, realpathOrNull } from '../../fs/real-path.js';
import { DEFAULT_PROJECT_ID, isProjectId } from '../ids.js';
import type { StoreContext } from '../session/store-context.js';

/**
 * Which of the user's projects an agent's exchange belongs to (DESIGN §14 "Which project"):
 * the project a client names (`x-entity-memory-project`: an id, or a folder), else the
 * registered project whose folder holds the agent's working directory (the deepest one); else
 * none, and the folder is kept on the session (session/agent-folder.ts) so its page can offer
 * to add it as a project.
 */

export interface AgentWhereabouts {
  /** the `x-entity-memory-project` header: a project id or a folder */
  header?: string | null;
  /** the working directory the agent announced (an absolute path) */
  cwd?: string | null;
}

export interface AgentPlace {
  /** a registered project of this user (never Home), or null */
  projectId: string | null;
  /** the folder the agent worked in, as it named it; null when only a project id was given */
  folder: string | null;
}

export async function placeOfAgent(ctx: StoreContext, where: AgentWhereabouts): Promise<AgentPlace> {
  const header = where.header?.trim() || null;
  if (header && isProjectId(header) && header !== DEFAULT_PROJECT_ID && ctx.projects.has(header)) return { projectId: header, folder: null };
  const folder = header && isAbsolute(header) ? header : where.cwd && isAbsolute(where.cwd) ? where.cwd : null;
  if (!folder) return { projectId: null, folder: null };
  return { projectId: await projectHolding(ctx, folder), folder };
}

/** The registered project (not Home) whose folder holds `folder`, the deepest one; null when none. */
async function projectHolding(ctx: StoreContext, folder: string): Promise<string | null> {
  const real = await realpathOrNull(folder);
  if (!real) return null;
  let best: { id: string; depth: number } | null = null;
  for (const project of await ctx.projects.list()) {
    if (project.isDefault || project.pathMissing) continue;
    const root = await realpathOrNull(project.path);
    if (!root || !isInside(real, root)) continue;
    const depth = root.length;
    if (!best || depth > best.depth) best = { id: project.id, depth };
  }
  return best?.id ?? null;
}
