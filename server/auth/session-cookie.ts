import { decode, encode } from 'next-auth/jwt';
import type { AuthStore, UserRecord } from '@/lib/auth/index';

// next-auth's names: the __Secure- one when the sign-in happened over https.
const SESSION_COOKIE_NAMES = ['__Secure-next-auth.session-token', 'next-auth.session-token'] as const;

/** How long a sign-in lasts (next-auth's session maxAge and its cookie's lifetime). */
export const SESSION_MAX_AGE_S = 30 * 24 * 60 * 60;

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

/**
 * The Set-Cookie header that moves the caller's own sign-in to `newVersion` after their password
 * change ended every sign-in of theirs (the session version): the same claims, a fresh JWT, the
 * attributes next-auth gives its cookie. Null when the request carries no sign-in of that user
 * at `oldVersion`.
 */
export async function reissueSessionCookie(
  cookies: CookieReader,
  secret: string,
  user: { id: string; oldVersion: number; newVersion: number },
): Promise<string | null> {
  for (const name of SESSION_COOKIE_NAMES) {
    const token = cookies.get(name);
    if (!token) continue;
    let payload: Awaited<ReturnType<typeof decode>>;
    try {
      payload = await decode({ token, secret });
    } catch {
      continue;
    }
    if (!payload || payload.uid !== user.id || payload.sv !== user.oldVersion) continue;
    const { iat: _iat, exp: _exp, jti: _jti, ...claims } = payload;
    const value = await encode({ token: { ...claims, sv: user.newVersion }, secret, maxAge: SESSION_MAX_AGE_S });
    const expires = new Date(Date.now() + SESSION_MAX_AGE_S * 1000).toUTCString();
    const secure = name.startsWith('__Secure-') ? '; Secure' : '';
    return `${name}=${value}; Path=/; Expires=${expires}; HttpOnly; SameSite=Lax${secure}`;
  }
  return null;
}
