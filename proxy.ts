import { NextResponse, type NextRequest } from 'next/server';
import { cookieReader, hasSessionCookie } from '@/server/auth/session-cookie';
import { contentSecurityPolicy } from '@/server/http/security-headers';
import { isCrossOriginServerAction, isMalformedServerActionBody } from '@/server/auth/origin';

// Pages anyone may open. Everything else that is not an API route needs a sign-in.
const PUBLIC_PAGES = new Set(['/signin']);
// Share links decide for themselves (OPENPROGRAM_SHARING: off, login or public), and are never indexed or cached.
const SHARED_PAGE = /^\/s\/[^/]+\/?$/;

/**
 * Pages: the nonce CSP and the security headers, and signed-out requests sent to /signin. Only
 * the cookie's presence is checked here (cheap); the (app) layout validates it fully. API routes
 * and static files are not matched (their headers come from next.config.ts) and answer 401 JSON
 * on their own.
 */
export async function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const isPage = !/\.[a-z0-9]+$/i.test(pathname);

  let response: NextResponse;
  const nonce = btoa(crypto.randomUUID());
  const csp = contentSecurityPolicy(nonce);
  const shared = SHARED_PAGE.test(pathname);
  if (isCrossOriginServerAction(request.method, request.headers, process.env.NEXTAUTH_URL)) {
    response = NextResponse.json({ error: 'cross-origin request refused' }, { status: 403 });
  } else if (request.method === 'POST' && request.headers.has('next-action') && isMalformedServerActionBody(request.headers, await request.clone().text())) {
    response = NextResponse.json({ error: 'a server action takes a JSON list of arguments' }, { status: 400 });
  } else if (isPage && !shared && !PUBLIC_PAGES.has(pathname) && !hasSessionCookie(cookieReader(request.headers.get('cookie')))) {
    const target = new URL('/signin', request.url);
    if (pathname !== '/') target.searchParams.set('callbackUrl', `${pathname}${search}`);
    response = NextResponse.redirect(target);
  } else {
    const requestHeaders = new Headers(request.headers);
    requestHeaders.set('x-nonce', nonce);
    requestHeaders.set('content-security-policy', csp);
    response = NextResponse.next({ request: { headers: requestHeaders } });
  }
  // The other security headers come from next.config.ts, for pages as for everything else.
  response.headers.set('content-security-policy', csp);
  if (shared) {
    response.headers.set('x-robots-tag', 'noindex');
    response.headers.set('cache-control', 'no-store');
  }
  return response;
}

export const config = {
  // Not API routes nor /mcp (the proxy would buffer every request body), nor static files.
  matcher: ['/((?!api/|mcp$|_next/static/|_next/image|favicon.ico).*)'],
};
