import type { TokenAccess, TokenScope, UserRecord } from '@/lib/auth/index';
import { isCrossOriginRequest } from '@/server/auth/origin';
import { authenticateRequest, type AuthVia } from '@/server/auth/request-auth';
import { admitRead, enterUserWrite, type GateRefusal } from '@/server/cluster/user-gate';
import { misdirectedResponse } from '@/server/cluster/misdirected';
import { getAuthStore, getUserStore, type UserStore } from '@/server/runtime';
import { missingScope } from './route-access';

export interface RouteCaller {
  user: UserRecord;
  via: AuthVia;
  /** a token's scopes and project (route-access.ts); everything for a cookie */
  access: TokenAccess;
  /** the caller's own session store: the only one a route handler may use */
  store: UserStore;
}

/** `{error}` JSON, the shape of every answer of the plain (non-tRPC) routes. */
export function jsonError(status: number, error: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error }, { status, headers });
}

/** The move gate's refusal as a plain route's answer: the one 421, or 503 with Retry-After as tRPC says it. */
export function gateRefusalResponse(refusal: GateRefusal): Response {
  if (refusal.kind === 'moved') return misdirectedResponse(refusal.owner);
  return jsonError(503, refusal.message, { 'retry-after': String(refusal.retryAfterSeconds) });
}

/**
 * What protectedProcedure and the Origin check do for tRPC, for plain route handlers: a cookie
 * or a Bearer token (never one in the URL), and for a cookie-authenticated write an Origin of
 * our own; a user moved to another instance gets the 421 naming it. Returns the caller, or the
 * response to send instead. A write goes through withRouteWrite, which also enters the move gate.
 */
export async function authenticateRoute(headers: Headers, options: { write: boolean; scope?: TokenScope }): Promise<RouteCaller | Response> {
  const outcome = await authenticateRequest(headers, getAuthStore());
  if (outcome.kind !== 'ok') {
    return jsonError(401, outcome.kind === 'invalid' ? outcome.message : 'sign in or send Authorization: Bearer <token>');
  }
  const { user, via, access } = outcome.auth;
  // The token's scope: named by the route, else what a read or a write needs.
  const lacking = missingScope(access, options.scope ?? (options.write ? 'write' : 'read'));
  if (lacking !== null) return jsonError(403, lacking);
  // Bearer requests carry no ambient credential; only the cookie can be replayed by another site.
  if (options.write && via === 'cookie' && isCrossOriginRequest(headers, process.env.NEXTAUTH_URL)) {
    return jsonError(403, 'cross-origin request refused');
  }
  // Before the store: a moved user's store is the new owner's, and opening it here fails.
  const refusal = admitRead(user.id);
  if (refusal) return gateRefusalResponse(refusal);
  return { user, via, access, store: await getUserStore(user.id) };
}

/**
 * A plain route's write (import, attachments, archive): authenticated as above, then inside the
 * move gate for the whole of `write` (a frozen user gets 503 with Retry-After; a move's freeze
 * waits for a write already inside), so nothing lands after a move's final copy.
 */
export async function withRouteWrite(headers: Headers, write: (caller: RouteCaller) => Promise<Response>, scope: TokenScope = 'write'): Promise<Response> {
  const caller = await authenticateRoute(headers, { write: true, scope });
  if (caller instanceof Response) return caller;
  const entry = enterUserWrite(caller.user.id);
  if (!entry.ok) return gateRefusalResponse(entry.refusal);
  try {
    return await write(caller);
  } finally {
    entry.leave();
  }
}
