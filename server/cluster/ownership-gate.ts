import type http from 'node:http';
import type { AuthStore } from '@/lib/auth/index';
import type { ClusterNode } from '@/lib/cluster/node';
import { isHttpsRequest } from '@/server/auth/options';
import { cookieReader, SESSION_MAX_AGE_S, userFromSessionCookie } from '@/server/auth/session-cookie';
import { MEMORY_TOKEN_HEADER } from '@/server/proxy/credentials';
import { misdirectedAnswer, misdirectedHeaders } from './misdirected';
import { admitShareRequest, shareIdOfPath } from '@/server/cluster/share-route';

/**
 * The routing hint HAProxy reads (deploy/haproxy/haproxy.cfg): the signed-in user's id. The
 * sign-in cookie itself is encrypted (next-auth's JWE), so the proxy cannot read the id there;
 * this cookie is never trusted: the instance compares it with the sign-in cookie's user.
 */
export const ROUTE_COOKIE = 'em_route';
/** On every answer in cluster mode: which instance gave it (for operators and the tests). */
export const INSTANCE_HEADER = 'x-entity-memory-instance';

// Answered by any instance: HAProxy's health check and static files.
const ANY_INSTANCE = [/^\/api\/health(\?|$)/, /^\/_next\/static\//, /^\/favicon\.ico$/];

interface Identity {
  userId: string;
  via: 'cookie' | 'token';
}

/**
 * The headers an API token of ours may come in besides `Authorization: Bearer`: the recording
 * proxy reads our token from `x-entity-memory-token` (the agent keeps its own key) or as the
 * agent's API key in `x-api-key` (Anthropic's SDKs, Claude Code's ANTHROPIC_API_KEY).
 */
const TOKEN_HEADERS = [MEMORY_TOKEN_HEADER, 'x-api-key'] as const;

const one = (value: string | string[] | undefined): string | null => (Array.isArray(value) ? (value[0] ?? null) : (value ?? null));

/**
 * Every user a request's credentials name, in every form one can take: each must be owned here,
 * so no route (the proxy reads the token headers, the API the Bearer token) acts for a user this
 * instance does not own. A provider's own key in these headers names nobody and is let through.
 */
async function identify(headers: http.IncomingHttpHeaders, auth: AuthStore): Promise<Identity[]> {
  const identities: Identity[] = [];
  for (const name of TOKEN_HEADERS) {
    const token = one(headers[name])?.trim();
    const found = token ? auth.authenticateToken(token) : null;
    if (found) identities.push({ userId: found.user.id, via: 'token' });
  }
  const authorization = one(headers.authorization);
  if (authorization !== null) {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    // A valid token names its real owner; a forged id in it fails the hash and is refused downstream (401).
    const found = token && !auth.isCliToken(token) ? auth.authenticateToken(token) : null;
    if (found) identities.push({ userId: found.user.id, via: 'token' });
    return identities;
  }
  const cookieHeader = one(headers.cookie);
  const session = cookieHeader ? await userFromSessionCookie(cookieReader(cookieHeader), auth) : null;
  if (session) identities.push({ userId: session.user.id, via: 'cookie' });
  return identities;
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
  const identities = await identify(req.headers, node.auth);
  const secure = isHttpsRequest(headersOf(req));
  const hinted = cookieReader(one(req.headers.cookie)).get(ROUTE_COOKIE);
  for (const { userId, via } of identities) {
    let verdict = node.ownership.check(userId);
    if (verdict.kind === 'unknown') {
      // Placed a moment ago by another instance, its message not yet here: ask Postgres once.
      await node.ownership.refresh(userId);
      verdict = node.ownership.check(userId);
    }
    if (verdict.kind === 'mine') continue;
    if (verdict.kind === 'unknown') {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ error: { message: 'this user has no instance yet; try again in a second', data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503 } } }));
      return false;
    }
    const owner = { instance: verdict.owner.shard, url: verdict.url, epoch: verdict.owner.epoch };
    const routeCookieHeader: Record<string, string> = via === 'cookie' ? { 'set-cookie': routeCookie(userId, secure) } : {};
    const isPageLoad = (req.method === 'GET' || req.method === 'HEAD') && /text\/html/.test(req.headers.accept ?? '');
    if (via === 'cookie' && hinted !== userId && isPageLoad) {
      // The route cookie was missing (first page after sign-in) or stale: set it and come back through HAProxy.
      res.writeHead(307, { ...misdirectedHeaders(owner), ...routeCookieHeader, location: url });
      res.end();
      return false;
    }
    const misdirected = misdirectedAnswer(owner);
    res.writeHead(misdirected.status, { ...misdirected.headers, ...routeCookieHeader });
    res.end(JSON.stringify(misdirected.body));
    return false;
  }
  const signedIn = identities.find((identity) => identity.via === 'cookie');
  if (signedIn && hinted !== signedIn.userId) addSetCookie(res, routeCookie(signedIn.userId, secure));
  return true;
}
