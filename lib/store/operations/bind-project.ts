import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConflictError, NotFoundError, PreconditionError } from '../errors.js';
import { DEFAULT_PROJECT_ID, assertProjectId } from '../ids.js';
import { DIR_MODE } from '../../fs/atomic-write.js';
import { saveLocations, defaultRepoDir, projectRepoDir } from '../session/locations.js';
import { type StoreContext } from '../session/store-context.js';
import { projectMigrationBlock } from '../session/migration-journal.js';
import { toRow } from '../registry/row.js';
import type { SessionRow } from '../types.js';
import { updateSessionFields, withSession } from '../session/session-access.js';

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

    const target = projectId === DEFAULT_PROJECT_ID ? defaultRepoDir(ctx, sessionId) : projectRepoDir(ctx, projectId, sessionId);
    if (existsSync(target)) throw new ConflictError(`a directory is already in the way at ${target}`);
    ctx.writer.journal(sessionId);
    mkdirSync(dirname(target), { recursive: true, mode: DIR_MODE });
    renameSync(session.dir, target);
    if (projectId === DEFAULT_PROJECT_ID) ctx.locations.delete(sessionId);
    else ctx.locations.set(sessionId, target);
    saveLocations(ctx);
    session.dir = target;
    session.commit = null; // paths changed; reload lazily

    if (current !== DEFAULT_PROJECT_ID) await ctx.projects.removeSession(current, sessionId).catch(() => false);
    if (projectId !== DEFAULT_PROJECT_ID) await ctx.projects.addSession(projectId, sessionId);
    return toRow(ctx, await updateSessionFields(ctx, session, { project_id: projectId }));
  });
}
