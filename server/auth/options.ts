import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { z } from 'zod';
import { getAuthStore } from '@/server/runtime';
import { auditSignIn } from '@/server/audit/audit-sign-in';
import { clientIp } from './client-ip';
import { logAuthError, OIDC_PROVIDER_ID, oidcConfig, oidcProvider, oidcSignIn, signedInUser } from './oidc-provider';
import { SESSION_MAX_AGE_S } from './session-cookie';
import { markRateLimited, markSignedIn } from './sign-in-status';
import './types';

// Without NEXTAUTH_URL, next-auth would build every URL on http://localhost:3000; trusting the
// Host header instead lets the app run on any address with no configuration.
if (!process.env.NEXTAUTH_URL) process.env.AUTH_TRUST_HOST ??= 'true';

const credentialsInput = z.object({
  email: z.string().trim().min(1).max(254),
  password: z.string().min(1).max(1024),
});

/** Secure cookies when the app is served over https (NEXTAUTH_URL, or a TLS proxy's x-forwarded-proto). */
export function isHttpsRequest(headers: Headers): boolean {
  if (process.env.NEXTAUTH_URL?.startsWith('https://')) return true;
  return headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
}

function waitText(ms: number): string {
  if (ms < 60_000) {
    const seconds = Math.max(1, Math.ceil(ms / 1000));
    return `${seconds} second${seconds === 1 ? '' : 's'}`;
  }
  const minutes = Math.ceil(ms / 60_000);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * next-auth v4: email and password through the credentials provider, JWT sessions. The JWT carries
 * the user id and session version only; both are checked against users.json on every request
 * (server/auth/session-cookie.ts), so disabling a user or resetting a password ends sign-ins at once.
 */
export function authOptions(secure: boolean): NextAuthOptions {
  const auth = getAuthStore();
  // Single sign-on beside passwords, when OPENPROGRAM_OIDC_* configure it (server/auth/oidc-provider.ts).
  const oidc = oidcConfig();
  return {
    secret: auth.secret,
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_S },
    // next-auth's defaults are already httpOnly, SameSite=Lax, path /; Secure (and the __Secure-
    // prefix) follow `secure`.
    useSecureCookies: secure,
    pages: { signIn: '/signin', error: '/signin' },
    logger: { error: logAuthError },
    providers: [
      CredentialsProvider({
        id: 'credentials',
        name: 'Email',
        credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
        async authorize(credentials, req) {
          const parsed = credentialsInput.safeParse(credentials);
          if (!parsed.success) return null;
          const result = await auth.signIn(parsed.data.email, parsed.data.password, clientIp(req.headers ?? {}));
          await auditSignIn(req.headers ?? {}, parsed.data.email, result);
          if (result.ok) markSignedIn(req.headers ?? {}, result.user.id);
          if (result.ok) return { id: result.user.id, email: result.user.email, sessionVersion: result.user.sessionVersion };
          if (result.reason === 'rate_limited') {
            markRateLimited(req.headers ?? {}, result.retryAfterMs);
            // next-auth passes a thrown message to the sign-in page as ?error=.
            throw new Error(`Too many failed sign-ins. Try again in ${waitText(result.retryAfterMs)}.`);
          }
          return null;
        },
      }),
      ...(oidc ? [oidcProvider(oidc)] : []),
    ],
    callbacks: {
      signIn: ({ account, profile }) => (oidc && account?.provider === OIDC_PROVIDER_ID ? oidcSignIn(auth, oidc, profile) : true),
      jwt({ token, user, account, profile }) {
        if (user) {
          const signedIn = signedInUser(auth, user, account, profile);
          if (!signedIn) throw new Error('the signed-in user is gone');
          token.uid = signedIn.id;
          token.sv = signedIn.sessionVersion;
        } else if (typeof token.uid !== 'string' || typeof token.sv !== 'number' || !auth.sessionUser(token.uid, token.sv)) {
          // next-auth answers a throw here by clearing the cookie: /api/auth/session signs out too.
          throw new Error('the session has ended (user disabled or password reset)');
        }
        return token;
      },
      session({ session, token }) {
        const user = typeof token.uid === 'string' ? auth.users.get(token.uid) : undefined;
        if (user) session.user = { id: user.id, email: user.email, admin: user.admin };
        return session;
      },
      // Only ever redirect within this app.
      redirect({ url, baseUrl }) {
        if (url.startsWith('/') && !url.startsWith('//')) return `${baseUrl}${url}`;
        try {
          if (new URL(url).origin === new URL(baseUrl).origin) return url;
        } catch {
          // fall through
        }
        return baseUrl;
      },
    },
  };
}
