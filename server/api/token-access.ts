/**
 * What a token's scopes and project allow a procedure (DESIGN §17). Declarative: a procedure's
 * meta names the scope it needs (absent: a query needs `read`, a mutation `write`) and how it
 * meets a project-limited token; protectedProcedure and sessionProcedure check them, never a handler.
 */
import { TRPCError } from '@trpc/server';
import { hasScope, missingScopeMessage, outsideProjectMessage, type TokenAccess, type TokenScope } from '@/lib/auth/index';

/**
 * How a procedure meets a token limited to one project:
 * - `session`: it acts on one session, which must be in the project (sessionProcedure checks it);
 * - `narrowed`: its handler narrows what it reads or writes to the project (`projectOf(ctx)`);
 * - `none`: it reads nothing of any project (the caller's own account, the model list).
 * Absent: such a token is refused, so a new procedure reaches nothing of other projects by default.
 */
export type ProjectReach = 'session' | 'narrowed' | 'none';

export interface ProcedureMeta {
  /** the scope a token needs; absent: `read` for a query, `write` for a mutation */
  scope?: TokenScope;
  project?: ProjectReach;
}

export function requiredScope(meta: ProcedureMeta | undefined, type: string): TokenScope {
  return meta?.scope ?? (type === 'query' ? 'read' : 'write');
}

/** Throws the 403 of a token without the procedure's scope, or limited to a project the procedure cannot keep to. */
export function checkProcedureAccess(access: TokenAccess, meta: ProcedureMeta | undefined, type: string, path: string): void {
  const scope = requiredScope(meta, type);
  if (!hasScope(access, scope)) throw new TRPCError({ code: 'FORBIDDEN', message: missingScopeMessage(scope) });
  if (access.projectId !== null && meta?.project === undefined) {
    throw new TRPCError({ code: 'FORBIDDEN', message: `${outsideProjectMessage(access.projectId)}: it cannot call ${path}` });
  }
}

/**
 * A session outside a project-limited token's project: a read answers as an unknown session
 * (the token does not see it), a write is refused with 403.
 */
export function checkSessionProject(access: TokenAccess, sessionProjectId: string | null, type: string, sessionId: string): void {
  if (access.projectId === null || sessionProjectId === access.projectId) return;
  if (type === 'query' || sessionProjectId === null) throw new TRPCError({ code: 'NOT_FOUND', message: `unknown session: ${sessionId}` });
  throw new TRPCError({ code: 'FORBIDDEN', message: `${outsideProjectMessage(access.projectId)}; session ${sessionId} is in another project` });
}

/** The project a handler of a `narrowed` procedure keeps to, or undefined for every project. */
export function projectOf(ctx: { access?: TokenAccess }): string | undefined {
  return ctx.access?.projectId ?? undefined;
}

/** A list filter kept to a project-limited token's project; null when it asks for another project (an empty answer). */
export function narrowedFilter<T extends { projectId?: string }>(input: T, project: string | undefined): T | null {
  if (project === undefined) return input;
  if (input.projectId !== undefined && input.projectId !== project) return null;
  return { ...input, projectId: project };
}

/** The project a new session of a project-limited token goes to: its own; another is refused with 403. */
export function narrowedNewSessionProject(requested: string | undefined, project: string | undefined): string | undefined {
  if (project === undefined || requested === undefined || requested === project) return project ?? requested;
  throw new TRPCError({ code: 'FORBIDDEN', message: `${outsideProjectMessage(project)}; it cannot create a session in "${requested}"` });
}
