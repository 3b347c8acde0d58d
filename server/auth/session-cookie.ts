import { decode } from 'next-auth/jwt';
import type { AuthStore, UserRecord } from '@/lib/auth/index';

// next-auth's names: the __Secure- one when the sign-in happened over https.
export const SESSION_COOKIE_NAMES = ['__Secure-next-auth.session-token', 'next-auth.session-token'] as const;

export interface CookieReader {
  get(name: string): string | undefined;
}

export function cookieReader(cookieHeader: string | null): CookieReader {
  const cookies = new Map<string, string>();
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!cookies.has(name)) {
      try {
        cookies.set(name, decodeURIComponent(part.slice(eq + 1).trim()));
      } catch {
        // a malformed cookie value is ignored
      }
    }
  }
  return { get: (name) => cookies.get(name) };
}

export function hasSessionCookie(cookies: CookieReader): boolean {
  return SESSION_COOKIE_NAMES.some((name) => cookies.get(name) !== undefined);
}

/** The signed-in user of a session cookie, if the cookie is genuine and its session still valid. */
export async function userFromSessionCookie(
  cookies: CookieReader,
  auth: AuthStore,
): Promise<{ user: UserRecord; sessionVersion: number } | null> {
  for (const name of SESSION_COOKIE_NAMES) {
    const token = cookies.get(name);
    if (!token) continue;
    let payload: Awaited<ReturnType<typeof decode>>;
    try {
      payload = await decode({ token, secret: auth.secret });
    } catch {
      continue; // forged, from another secret, or expired
    }
    if (!payload || typeof payload.uid !== 'string' || typeof payload.sv !== 'number') continue;
    const user = auth.sessionUser(payload.uid, payload.sv);
    if (user) return { user, sessionVersion: payload.sv };
  }
  return null;
}
