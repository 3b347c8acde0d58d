import type { UserRecord } from '@/lib/auth/index';
import { isCrossOriginRequest } from '@/server/auth/origin';
import { authenticateRequest, type AuthVia } from '@/server/auth/request-auth';
import { getAuthStore, getUserStore, type UserStore } from '@/server/runtime';

export interface RouteCaller {
  user: UserRecord;
  via: AuthVia;
  /** the caller's own session store: the only one a route handler may use */
  store: UserStore;
}

/** `{error}` JSON, the shape of every answer of the plain (non-tRPC) routes. */
export function jsonError(status: number, error: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error }, { status, headers });
}

/**
 * What protectedProcedure and the Origin check do for tRPC, for plain route handlers: a cookie
 * or a Bearer token (never one in the URL), and for a cookie-authenticated write an Origin of
 * our own. Returns the caller, or the response to send instead.
 */
export async function authenticateRoute(headers: Headers, options: { write: boolean }): Promise<RouteCaller | Response> {
  const outcome = await authenticateRequest(headers, getAuthStore());
  if (outcome.kind !== 'ok') {
    return jsonError(401, outcome.kind === 'invalid' ? outcome.message : 'sign in or send Authorization: Bearer <token>');
  }
  const { user, via } = outcome.auth;
  // Bearer requests carry no ambient credential; only the cookie can be replayed by another site.
  if (options.write && via === 'cookie' && isCrossOriginRequest(headers, process.env.NEXTAUTH_URL)) {
    return jsonError(403, 'cross-origin request refused');
  }
  return { user, via, store: await getUserStore(user.id) };
}
