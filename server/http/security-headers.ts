/**
 * Headers on every response. Pages get a CSP whose scripts run only with that request's nonce
 * (proxy.ts; Next adds the nonce to its own scripts when it finds it in the request's CSP header);
 * nothing may frame the app.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    // Next and React set inline style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** API answers and static files are never rendered as documents: they need no script at all. */
export const NON_PAGE_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * next.config `headers()`: the static headers everywhere, and the strict CSP on API routes and
 * static files. Those paths are kept out of proxy.ts, which would otherwise buffer every request
 * body (uploads included) in memory.
 */
export function securityHeaderRules(): Array<{ source: string; headers: Array<{ key: string; value: string }> }> {
  const staticHeaders = Object.entries(STATIC_SECURITY_HEADERS).map(([key, value]) => ({ key, value }));
  const csp = [{ key: 'content-security-policy', value: NON_PAGE_CSP }];
  return [
    { source: '/:path*', headers: staticHeaders },
    { source: '/api/:path*', headers: csp },
    { source: '/_next/:path*', headers: csp },
  ];
}
