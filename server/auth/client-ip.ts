/**
 * The client's address for rate limiting. `next start` fills x-forwarded-for with the socket
 * address only when the request has none, and a reverse proxy appends the address it saw, so the
 * LAST entry is the one a client cannot choose when a proxy is in front. Without a proxy a client
 * can put anything there; the per-email limit does not depend on it.
 */
export function clientIp(headers: Headers | Record<string, unknown>): string | null {
  // next-auth hands authorize() a plain object of headers; everything else has Headers.
  const raw = headers instanceof Headers ? headers.get('x-forwarded-for') : headers['x-forwarded-for'];
  const value = Array.isArray(raw) ? raw.join(',') : typeof raw === 'string' ? raw : null;
  const last = value?.split(',').map((part) => part.trim()).filter(Boolean).at(-1);
  return last ? last.slice(0, 64) : null;
}
