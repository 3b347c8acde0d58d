/**
 * A token's scopes and project on the plain routes (DESIGN §17), as server/api/token-access.ts
 * does for procedures: each route names its scope where it authenticates (route-auth.ts), and a
 * route that takes a session id asks whether a project-limited token reaches it.
 */
import { hasScope, missingScopeMessage, outsideProjectMessage, type TokenAccess, type TokenScope } from '@/lib/auth/index';

/** The 403 body's words when the access lacks `scope`, else null. */
export function missingScope(access: TokenAccess, scope: TokenScope): string | null {
  return hasScope(access, scope) ? null : missingScopeMessage(scope);
}

/** Whether a project-limited token reaches this session of the caller's store (every session otherwise). */
export function reachesSession(caller: { access: TokenAccess; store: { sessionProjectId(id: string): string | null } }, sessionId: string): boolean {
  return caller.access.projectId === null || caller.store.sessionProjectId(sessionId) === caller.access.projectId;
}

/** A write to a session outside a project-limited token's project. */
export function outsideProjectRefusal(access: TokenAccess, sessionId: string): string {
  return `${outsideProjectMessage(access.projectId ?? '')}; session ${sessionId} is in another project`;
}
