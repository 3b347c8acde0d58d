import { PreconditionError } from '../errors.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import type { StoreContext } from '../session/store-context.js';
import { projectMigrationBlock } from '../session/migration-journal.js';
import { moveSessionRepo } from '../session/move-session-repo.js';
import { withSession } from '../session/session-access.js';
import { toRow } from '../registry/row.js';
import type { SessionRow } from '../types.js';
import type { ProjectDetail } from '../projects/index.js';
import { AGENT_FOLDER_KEY } from '../session/agent-folder.js';

/**
 * "Add <folder> as a project" on an agent's session in Home (DESIGN §14): the folder the agent
 * worked in becomes a project (inside the user's allowed roots, else FORBIDDEN; a folder with
 * no repository is initialised as any new project is) and the session moves into it, so its
 * next exchanges commit the agent's edits there. Unlike a person's choice of project, this move
 * is allowed after the first turn: a session in Home has no project commits to leave behind.
 */
export async function addAgentFolderAsProject(ctx: StoreContext, sessionId: string): Promise<{ session: SessionRow; project: ProjectDetail }> {
  const folder = await withSession(ctx, sessionId, (session) => {
    if (ctx.registry.get(sessionId)!.project_id !== DEFAULT_PROJECT_ID) throw new PreconditionError('this session is already in a project');
    const value = session.meta[AGENT_FOLDER_KEY];
    if (typeof value !== 'string' || value === '') throw new PreconditionError('no agent recorded a working folder for this session');
    return value;
  });
  const project = await ctx.projects.resolve(folder);
  if (project.isDefault) throw new PreconditionError(`${folder} is the workspace folder of Home, not a project of its own`);
  const blocked = projectMigrationBlock(ctx.sessionsDir, project.id);
  if (blocked) throw new PreconditionError(blocked);
  const session = await moveFromHome(ctx, sessionId, project.id);
  return { session, project: await ctx.projects.get(project.id) };
}

/**
 * A session in Home into a project (the agent's folder is that project's): allowed after the
 * first turn, since Home commits nothing, so no project commit is left behind. A session
 * already in another project stays there.
 */
export function moveFromHome(ctx: StoreContext, sessionId: string, projectId: string): Promise<SessionRow> {
  return withSession(ctx, sessionId, async (open) => {
    const current = ctx.registry.get(sessionId)!.project_id;
    if (current === projectId) return toRow(ctx, ctx.registry.get(sessionId)!);
    if (current !== DEFAULT_PROJECT_ID) throw new PreconditionError('this session is already in a project');
    if (ctx.turns.has(sessionId)) throw new PreconditionError('a turn is running in this session; add the project after it ends');
    return moveSessionRepo(ctx, open, current, projectId);
  });
}
