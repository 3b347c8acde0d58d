import type { IncomingHttpHeaders } from 'node:http';

/**
 * OPENPROGRAM_TRUST_PROXY: the server sits behind a reverse proxy that sets X-Forwarded-For,
 * -Host and -Proto itself. Without it those headers are whatever the client wrote, so nothing
 * (rate limits, the Origin check, next-auth's URLs) may rest on them.
 */
export function trustProxy(): boolean {
  return /^(1|true|yes|on)$/i.test(process.env.OPENPROGRAM_TRUST_PROXY?.trim() ?? '');
}

/** Headers a client could forge to pass for another address or host. */
const FORWARDED_HEADERS = ['forwarded', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-port', 'x-real-ip'];

/**
 * Every request of the production server, before anything reads it: with no trusted proxy the
 * client's forwarded headers are dropped and X-Forwarded-For becomes the socket's address (the
 * one the per-address sign-in limit then counts). X-Forwarded-Proto stays: it only makes the
 * sign-in cookie Secure, which a client can always ask for, and the Origin check ignores it
 * unless the proxy is trusted.
 */
export function settleForwardedHeaders(headers: IncomingHttpHeaders, remoteAddress: string | undefined, trusted = trustProxy()): void {
  if (trusted) return;
  for (const name of FORWARDED_HEADERS) delete headers[name];
  if (remoteAddress) headers['x-forwarded-for'] = remoteAddress;
}
