import type { Account, Profile, User } from 'next-auth';
import type { OAuthConfig } from 'next-auth/providers/oauth';
import { discoveryUrl, readOidcConfig, signInWithOidc, type AuthStore, type OidcConfig, type UserRecord } from '@/lib/auth/index';
import { reportSignIn } from './sign-in-events';

/** next-auth's id for the provider: its callback is `/api/auth/callback/oidc`. */
export const OIDC_PROVIDER_ID = 'oidc';

let reading: ReturnType<typeof readOidcConfig> | undefined;

/** The single sign-on configuration from OPENPROGRAM_OIDC_*, or null when it is off. */
export function oidcConfig(): OidcConfig | null {
  reading ??= readOidcConfig(process.env);
  return reading.config;
}

/** Start-up's lines about a half-set configuration (server/startup.ts prints them). */
export function oidcConfigProblems(): string[] {
  reading ??= readOidcConfig(process.env);
  return reading.problems;
}

/**
 * The provider as next-auth 4 runs it: discovery at the issuer's well-known document, the code
 * flow with PKCE and state, and the ID token checked by openid-client (signature against the
 * issuer's keys, `iss`, `aud` = our client id, expiry); the profile is those claims.
 */
export function oidcProvider(config: OidcConfig): OAuthConfig<Profile & Record<string, unknown>> {
  return {
    id: OIDC_PROVIDER_ID,
    name: config.name,
    type: 'oauth',
    wellKnown: discoveryUrl(config.issuer),
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    // `groups` only when a group decides the role: some providers refuse a scope they do not know.
    authorization: { params: { scope: config.adminGroup ? 'openid email profile groups' : 'openid email profile' } },
    idToken: true,
    checks: ['pkce', 'state'],
    // next-auth wants an id here; ours is found from issuer + subject in oidcSignIn / oidcSessionUser.
    profile: (profile) => ({ id: String(profile.sub), email: typeof profile.email === 'string' ? profile.email : null, sessionVersion: 0 }),
  };
}

/** Where a refused sign-in lands: our sign-in page, which says the reason in words. */
export function refusedSignInUrl(code: string): string {
  return `/signin?error=${encodeURIComponent(code)}`;
}

/**
 * next-auth's signIn callback for the provider: the user found or created (lib/auth/oidc-users.ts),
 * or the sign-in page with the reason.
 */
export async function oidcSignIn(auth: AuthStore, config: OidcConfig, profile: Profile | undefined): Promise<true | string> {
  const result = await signInWithOidc(auth.users, (profile ?? {}) as Record<string, unknown>, config);
  if (!result.ok) {
    reportSignIn({ method: 'oidc', result: 'failure', userId: null, email: result.email, reason: result.reason });
    return refusedSignInUrl(`oidc-${result.reason}`);
  }
  reportSignIn({ method: 'oidc', result: 'success', userId: result.user.id, email: result.user.email, reason: null });
  return true;
}

/** The jwt callback's user at a sign-in: ours, by issuer and subject, for the provider's sign-ins. */
export function signedInUser(auth: AuthStore, user: User, account: Account | null, profile: Profile | undefined): Pick<UserRecord, 'id' | 'sessionVersion'> | undefined {
  if (account?.provider !== OIDC_PROVIDER_ID) return user;
  const issuer = (profile as Record<string, unknown> | undefined)?.iss;
  if (typeof issuer !== 'string') return undefined;
  return auth.users.findByIdentity({ kind: 'oidc', issuer, subject: account.providerAccountId });
}

/**
 * next-auth's error logger: an answer from the provider that openid-client refused (wrong
 * audience or issuer, a code already used or expired, a missing state cookie) is a failed
 * sign-in too; the browser lands on /signin?error=OAuthCallback.
 */
export function logAuthError(code: string, metadata: unknown): void {
  console.error(`[next-auth][error][${code}]`, metadata);
  if (code !== 'OAUTH_CALLBACK_ERROR' && code !== 'OAUTH_CALLBACK_HANDLER_ERROR') return;
  const error = (metadata as { error?: unknown } | undefined)?.error ?? metadata;
  const reason = error instanceof Error ? error.message : String(error);
  reportSignIn({ method: 'oidc', result: 'failure', userId: null, email: null, reason });
}
