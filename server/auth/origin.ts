/**
 * CSRF defence in depth for cookie-authenticated mutations (SameSite=Lax is the first line).
 * Browsers send Origin on every cross-origin POST, so a present Origin must be ours; a request
 * without Origin is not from a browser page and cannot carry a victim's cookie on its own.
 */
export function isCrossOriginRequest(headers: Headers, appUrl: string | undefined): boolean {
  if (headers.get('sec-fetch-site') === 'cross-site') return true;
  const origin = headers.get('origin');
  if (origin === null) return false;
  if (origin === 'null') return true; // sandboxed frames, data: URLs
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return true;
  }
  const allowed = new Set<string>();
  const host = headers.get('x-forwarded-host') ?? headers.get('host');
  if (host) allowed.add(host.split(',')[0]!.trim().toLowerCase());
  if (appUrl) {
    try {
      allowed.add(new URL(appUrl).host.toLowerCase());
    } catch {
      // an invalid NEXTAUTH_URL adds nothing
    }
  }
  return !allowed.has(originHost);
}
