import { FULL_ACCESS, type AuthStore, type TokenAccess, type UserRecord } from '@/lib/auth/index';
import { cookieReader, userFromSessionCookie } from './session-cookie';

/** How a request proved who it is. */
export type AuthVia = 'cookie' | 'token' | 'cli';

export interface RequestAuth {
  user: UserRecord;
  via: AuthVia;
  /** a token's scopes and project; everything for the cookie and the CLI */
  access: TokenAccess;
  /** re-checked while a long request (an event stream) is open: false once revoked or disabled */
  stillValid(): boolean;
}

export type AuthOutcome =
  | { kind: 'ok'; auth: RequestAuth }
  | { kind: 'anonymous' }
  /** a credential was given and is wrong: answer 401, never fall back to another credential */
  | { kind: 'invalid'; message: string };

/** The CLI names the user it acts for with this header; without it, it acts as the first admin. */
export const CLI_USER_HEADER = 'x-entity-memory-user';

/**
 * Who sent this request: `Authorization: Bearer <token>` (a personal API token, or the CLI's
 * token from data/auth/cli-token), else the next-auth session cookie. Tokens are only ever read
 * from the header, never from the URL.
 */
export async function authenticateRequest(headers: Headers, auth: AuthStore): Promise<AuthOutcome> {
  const authorization = headers.get('authorization');
  if (authorization !== null) {
    return authenticateBearer(headers, auth, authorization);
  }
  return authenticateCookie(headers, auth);
}

/**
 * Who is looking at a page: the sign-in cookie only. A page is the signed-in person's; an API
 * token beside any cookie of the session cookie's name once rendered pages for the token (and
 * /settings, /admin answered 500 on its cookie-only procedures). A missing or unusable cookie is
 * anonymous, which the pages turn into the sign-in redirect.
 */
export function authenticatePageRequest(headers: Headers, auth: AuthStore): Promise<AuthOutcome> {
  return authenticateCookie(headers, auth);
}

async function authenticateBearer(headers: Headers, auth: AuthStore, authorization: string): Promise<AuthOutcome> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) return { kind: 'invalid', message: 'Authorization must be "Bearer <token>"' };
  const token = match[1]!;
  if (auth.isCliToken(token)) return cliAuth(headers, auth, token);
  const found = auth.authenticateToken(token);
  if (!found) return { kind: 'invalid', message: 'the API token is invalid, expired or revoked' };
  const userId = found.user.id;
  return {
    kind: 'ok',
    auth: {
      user: found.user,
      via: 'token',
      access: found.access,
      stillValid: () => auth.tokens.isActive(found.tokenId) && !auth.users.get(userId)?.disabled,
    },
  };
}

async function authenticateCookie(headers: Headers, auth: AuthStore): Promise<AuthOutcome> {
  const session = await userFromSessionCookie(cookieReader(headers.get('cookie')), auth);
  if (!session) return { kind: 'anonymous' };
  const { user, sessionVersion } = session;
  return { kind: 'ok', auth: { user, via: 'cookie', access: FULL_ACCESS, stillValid: () => auth.sessionUser(user.id, sessionVersion) !== null } };
}

function cliAuth(headers: Headers, auth: AuthStore, token: string): AuthOutcome {
  const email = headers.get(CLI_USER_HEADER);
  const user = email ? auth.users.findByEmail(email) : auth.users.firstEnabledAdmin();
  if (!user) {
    return { kind: 'invalid', message: email ? `no user ${email}` : 'no enabled admin exists yet' };
  }
  if (user.disabled) return { kind: 'invalid', message: `user ${user.email} is disabled` };
  return { kind: 'ok', auth: { user, via: 'cli', access: FULL_ACCESS, stillValid: () => auth.isCliToken(token) && !user.disabled } };
}
