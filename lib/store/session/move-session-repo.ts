import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { DIR_MODE } from '../../fs/atomic-write.js';
import { ConflictError } from '../errors.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import { toRow } from '../registry/row.js';
import type { SessionRow } from '../types.js';
import { defaultRepoDir, projectRepoDir, saveLocations } from './locations.js';
import { updateSessionFields } from './session-access.js';
import type { OpenSession, StoreContext } from './store-context.js';

/**
 * Move a session's repo to its new project's place (sessions/projects/<pid>/<sid>, or
 * sessions/<sid> for Home) and bind it there. The caller holds the session and has decided
 * the move is allowed.
 */
export async function moveSessionRepo(ctx: StoreContext, session: OpenSession, from: string, projectId: string): Promise<SessionRow> {
  const sessionId = session.id;
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

  if (from !== DEFAULT_PROJECT_ID) await ctx.projects.removeSession(from, sessionId).catch(() => false);
  if (projectId !== DEFAULT_PROJECT_ID) await ctx.projects.addSession(projectId, sessionId);
  return toRow(ctx, await updateSessionFields(ctx, session, { project_id: projectId }));
}
