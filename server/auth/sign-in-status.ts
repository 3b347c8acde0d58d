import { randomUUID } from 'node:crypto';
import type http from 'node:http';

/**
 * next-auth answers every refused credentials sign-in alike (401 with `{url}` carrying the
 * error, for the JSON flow the sign-in form uses), so a rate-limited one would not be a 429.
 * The production server tags each sign-in request with an id only it sets; authorize() marks
 * the id when the limiter refused it, and the answer's status becomes 429 with Retry-After
 * (the body, and so the error text the form shows, stays next-auth's). A redirect (the no-JS
 * form post) stays a redirect, so a browser still lands on the error page.
 */
export const SIGN_IN_REQUEST_HEADER = 'x-entity-memory-sign-in';

// On globalThis: serve.ts loads this module itself, the built /api/auth route has its own copy.
const KEY = Symbol.for('entity-memory.refused-sign-ins');
const holder = globalThis as typeof globalThis & { [KEY]?: Map<string, number> };
const refused = (holder[KEY] ??= new Map<string, number>());
const SIGNED_IN_KEY = Symbol.for('entity-memory.signed-in-users');
const signedInHolder = globalThis as typeof globalThis & { [SIGNED_IN_KEY]?: Map<string, string> };
const signedIn = (signedInHolder[SIGNED_IN_KEY] ??= new Map<string, string>());

/** authorize(): this request signed the user in (cluster mode sets its route cookie on the answer). */
export function markSignedIn(headers: Record<string, unknown>, userId: string): void {
  const id = headers[SIGN_IN_REQUEST_HEADER];
  if (typeof id === 'string' && id !== '') signedIn.set(id, userId);
}

/** authorize(): this request was refused by the sign-in limiter. */
export function markRateLimited(headers: Record<string, unknown>, retryAfterMs: number): void {
  const id = headers[SIGN_IN_REQUEST_HEADER];
  if (typeof id === 'string' && id !== '') refused.set(id, retryAfterMs);
}

/** serve.ts, for `POST /api/auth/callback/credentials` before Next handles it. */
export function answerRateLimitedSignIns(req: http.IncomingMessage, res: http.ServerResponse, onSignedIn?: (res: http.ServerResponse, userId: string) => void): void {
  const id = randomUUID();
  // Set, not appended: whatever the client sent under this name is gone.
  req.headers[SIGN_IN_REQUEST_HEADER] = id;
  const writeHead = res.writeHead;
  res.writeHead = function (this: http.ServerResponse, statusCode: number, ...rest: unknown[]) {
    const retryAfterMs = refused.get(id);
    refused.delete(id);
    const userId = signedIn.get(id);
    signedIn.delete(id);
    if (userId !== undefined && onSignedIn) onSignedIn(this, userId);
    if (retryAfterMs !== undefined && (statusCode < 300 || statusCode >= 400)) {
      this.setHeader('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
      return (writeHead as (...args: unknown[]) => http.ServerResponse).call(this, 429, ...rest);
    }
    return (writeHead as (...args: unknown[]) => http.ServerResponse).call(this, statusCode, ...rest);
  } as typeof res.writeHead;
  res.on('close', () => {
    refused.delete(id);
    signedIn.delete(id);
  });
}
