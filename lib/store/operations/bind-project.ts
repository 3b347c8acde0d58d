import { ConflictError, NotFoundError, PreconditionError } from '../errors.js';
import { DEFAULT_PROJECT_ID, assertProjectId } from '../ids.js';
import { type StoreContext } from '../session/store-context.js';
import { moveSessionRepo } from '../session/move-session-repo.js';
import { projectMigrationBlock } from '../session/migration-journal.js';
import { toRow } from '../registry/row.js';
import type { SessionRow } from '../types.js';
import { withSession } from '../session/session-access.js';

const FROZEN_ERROR = 'project is frozen after the first turn';

/**
 * set_session_project: a draft (no message yet) may pick any project, and its repo moves to
 * sessions/projects/<pid>/<sid> (location recorded); after that the choice is frozen. Binding
 * to the project it already has is always accepted (the idempotent bind after the first turn).
 */
export function setSessionProject(ctx: StoreContext, sessionId: string, projectId: string): Promise<SessionRow> {
  assertProjectId(projectId);
  return withSession(ctx, sessionId, async (session) => {
    const current = ctx.registry.get(sessionId)!.project_id;
    if (current === projectId) {
      if (projectId !== DEFAULT_PROJECT_ID && ctx.projects.has(projectId)) await ctx.projects.addSession(projectId, sessionId);
      return toRow(ctx, ctx.registry.get(sessionId)!);
    }
    const frozen = (typeof session.meta.turn_count === 'number' && session.meta.turn_count > 0) || session.graph.bySeq.length > 0;
    if (frozen) throw new ConflictError(FROZEN_ERROR);
    if (!ctx.projects.has(projectId)) throw new NotFoundError(`unknown project: ${projectId}`);
    if (projectId !== DEFAULT_PROJECT_ID) {
      const blocked = projectMigrationBlock(ctx.sessionsDir, projectId);
      if (blocked) throw new PreconditionError(blocked);
      const where = await ctx.projects.workdirState(projectId);
      if (where.state === 'missing') throw new PreconditionError(`the folder of project ${ctx.projects.nameOf(projectId)} is missing (${where.path}); repair it first`);
    }

    return moveSessionRepo(ctx, session, current, projectId);
  });
}
