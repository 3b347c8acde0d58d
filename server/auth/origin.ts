import { trustProxy } from './proxy';

/**
 * CSRF defence in depth for cookie-authenticated mutations (SameSite=Lax is the first line).
 * Browsers send Origin on every cross-origin POST, so a present Origin must be ours, scheme and
 * host: NEXTAUTH_URL's origin, or the Host the request came to. The scheme of that Host is known
 * from NEXTAUTH_URL or a trusted proxy's X-Forwarded-Proto; X-Forwarded-Host counts only behind
 * a trusted proxy (OPENPROGRAM_TRUST_PROXY), since any client can send it. A request without
 * Origin is not from a browser page and cannot carry a victim's cookie on its own.
 */
export function isCrossOriginRequest(headers: Headers, appUrl: string | undefined, trusted = trustProxy()): boolean {
  if (headers.get('sec-fetch-site') === 'cross-site') return true;
  const origin = headers.get('origin');
  if (origin === null) return false;
  if (origin === 'null') return true; // sandboxed frames, data: URLs
  let given: URL;
  try {
    given = new URL(origin);
  } catch {
    return true;
  }
  let app: URL | null = null;
  try {
    app = appUrl ? new URL(appUrl) : null;
  } catch {
    app = null; // an invalid NEXTAUTH_URL adds nothing
  }
  if (app && given.protocol === app.protocol && given.host.toLowerCase() === app.host.toLowerCase()) return false;

  const forwardedHost = trusted ? first(headers.get('x-forwarded-host')) : null;
  const host = (forwardedHost ?? first(headers.get('host')))?.toLowerCase();
  if (!host || given.host.toLowerCase() !== host) return true;
  const forwardedProto = trusted ? first(headers.get('x-forwarded-proto')) : null;
  const scheme = forwardedProto ? `${forwardedProto.toLowerCase()}:` : trusted ? 'http:' : (app?.protocol ?? null);
  // Unknown scheme (no NEXTAUTH_URL, no trusted proxy): the host alone decides, http or https.
  if (scheme === null) return given.protocol !== 'http:' && given.protocol !== 'https:';
  return given.protocol !== scheme;
}

function first(value: string | null): string | null {
  const part = value?.split(',')[0]?.trim();
  return part ? part : null;
}

/**
 * A server action (a POST with Next's `next-action` header) posted from another origin. Next
 * refuses it too, but only after routing, with a 500; the pages' proxy answers 403 first, the
 * same refusal as tRPC and the route handlers give.
 */
export function isCrossOriginServerAction(method: string, headers: Headers, appUrl: string | undefined, trusted = trustProxy()): boolean {
  return method === 'POST' && headers.has('next-action') && isCrossOriginRequest(headers, appUrl, trusted);
}

/**
 * Next decodes a server action's text body as JSON and answers 500 when it is not: the pages'
 * proxy answers 400 first. Multipart bodies (forms) are left to Next.
 */
export function isMalformedServerActionBody(headers: Headers, body: string): boolean {
  if (!(headers.get('content-type') ?? '').toLowerCase().startsWith('text/plain')) return false;
  try {
    JSON.parse(body);
    return false;
  } catch {
    return true;
  }
}
