import type http from 'node:http';
import { tokenClaimedUserId, type AuthStore } from '@/lib/auth/index';
import type { ClusterNode } from '@/lib/cluster/node';
import { isHttpsRequest } from '@/server/auth/options';
import { cookieReader, SESSION_MAX_AGE_S, userFromSessionCookie } from '@/server/auth/session-cookie';
import { admitShareRequest, shareIdOfPath } from '@/server/cluster/share-route';

/**
 * The routing hint HAProxy reads (deploy/haproxy/haproxy.cfg): the signed-in user's id. The
 * sign-in cookie itself is encrypted (next-auth's JWE), so the proxy cannot read the id there;
 * this cookie is never trusted: the instance compares it with the sign-in cookie's user.
 */
export const ROUTE_COOKIE = 'em_route';
/** On a 421: `<instance id> <instance url>` of the user's owner. */
export const OWNER_HEADER = 'x-entity-memory-owner';
/** On every answer in cluster mode: which instance gave it (for operators and the tests). */
export const INSTANCE_HEADER = 'x-entity-memory-instance';

// Answered by any instance: HAProxy's health check and static files.
const ANY_INSTANCE = [/^\/api\/health(\?|$)/, /^\/_next\/static\//, /^\/favicon\.ico$/];

interface Identity {
  userId: string;
  via: 'cookie' | 'token';
}

async function identify(headers: http.IncomingHttpHeaders, auth: AuthStore): Promise<Identity | null> {
  const authorization = headers.authorization;
  if (typeof authorization === 'string') {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (!token || auth.isCliToken(token)) return null;
    // A valid token names its real owner; a forged id in it fails the hash and is refused downstream (401).
    const found = auth.authenticateToken(token);
    if (found) return { userId: found.user.id, via: 'token' };
    return null;
  }
  const cookieHeader = typeof headers.cookie === 'string' ? headers.cookie : null;
  if (!cookieHeader) return null;
  const session = await userFromSessionCookie(cookieReader(cookieHeader), auth);
  return session ? { userId: session.user.id, via: 'cookie' } : null;
}

/** A sign-in's answer (serve.ts, through sign-in-status): the route cookie beside the sign-in cookie, so the next request already lands on the owner. */
export function setRouteCookieOnSignIn(req: http.IncomingMessage, res: http.ServerResponse, userId: string): void {
  addSetCookie(res, routeCookie(userId, isHttpsRequest(headersOf(req))));
}

function routeCookie(userId: string, secure: boolean): string {
  return `${ROUTE_COOKIE}=${userId}; Path=/; Max-Age=${SESSION_MAX_AGE_S}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** Adds a Set-Cookie that survives whatever Next sets later on the same response. */
function addSetCookie(res: http.ServerResponse, cookie: string): void {
  const asList = (value: number | string | readonly string[] | undefined): string[] =>
    value === undefined ? [] : Array.isArray(value) ? [...(value as string[])] : [String(value)];
  const original = res.setHeader.bind(res);
  res.setHeader('set-cookie', [...asList(res.getHeader('set-cookie')), cookie]);
  res.setHeader = ((name: string, value: number | string | readonly string[]) =>
    name.toLowerCase() === 'set-cookie' ? original(name, [...asList(value), cookie]) : original(name, value)) as typeof res.setHeader;
}

function headersOf(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

/**
 * Cluster mode, before any route: a request of a signed-in user (cookie or API token) is served
 * only by the instance that owns the user at the current epoch. HAProxy's route is a hint: on
 * any other instance the answer is 421 naming the owner, or for a browser's page load whose
 * route cookie was missing or named someone else, a redirect that sets it (HAProxy then sends
 * the same URL to the owner). Anonymous requests (the sign-in page and its POST) pass on any
 * instance. Returns true when the request may go on here.
 */
export async function admitClusterRequest(req: http.IncomingMessage, res: http.ServerResponse, node: ClusterNode): Promise<boolean> {
  const url = req.url ?? '/';
  res.setHeader(INSTANCE_HEADER, node.config.instanceId);
  if (ANY_INSTANCE.some((pattern) => pattern.test(url))) return true;
  // A shared conversation goes by its link's owner, not by the visitor (DESIGN §13).
  const shareId = shareIdOfPath(url);
  if (shareId !== null) return admitShareRequest(shareId, res, node);
  const identity = await identify(req.headers, node.auth);
  if (!identity) return true;
  const { userId } = identity;
  const secure = isHttpsRequest(headersOf(req));
  const hinted = identity.via === 'cookie' ? cookieReader(typeof req.headers.cookie === 'string' ? req.headers.cookie : null).get(ROUTE_COOKIE) : tokenClaimedUserId(req.headers.authorization ?? '');
  let verdict = node.ownership.check(userId);
  if (verdict.kind === 'unknown') {
    // Placed a moment ago by another instance, its message not yet here: ask Postgres once.
    await node.ownership.refresh(userId);
    verdict = node.ownership.check(userId);
  }
  if (verdict.kind === 'mine') {
    if (identity.via === 'cookie' && hinted !== userId) addSetCookie(res, routeCookie(userId, secure));
    return true;
  }
  if (verdict.kind === 'unknown') {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ error: { message: 'this user has no instance yet; try again in a second', data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } } }));
    return false;
  }
  const { owner, url: ownerUrl } = verdict;
  const headers: Record<string, string> = {
    [OWNER_HEADER]: `${owner.shard} ${ownerUrl ?? ''}`.trim(),
    'cache-control': 'no-store',
  };
  if (identity.via === 'cookie') headers['set-cookie'] = routeCookie(userId, secure);
  const isPageLoad = (req.method === 'GET' || req.method === 'HEAD') && /text\/html/.test(req.headers.accept ?? '');
  if (identity.via === 'cookie' && hinted !== userId && isPageLoad) {
    // The route cookie was missing (first page after sign-in) or stale: set it and come back through HAProxy.
    res.writeHead(307, { ...headers, location: url });
    res.end();
    return false;
  }
  res.writeHead(421, { ...headers, 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      error: {
        message: `this user is served by instance ${owner.shard}${ownerUrl ? ` (${ownerUrl})` : ''}; send the request there`,
        data: { code: 'MISDIRECTED_REQUEST', httpStatus: 421, owner: { instance: owner.shard, url: ownerUrl, epoch: owner.epoch } },
      },
    }),
  );
  return false;
}
