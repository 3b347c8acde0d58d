// What the sign-in page says when a single sign-on ends back on it with ?error= (no 'use client':
// the server-rendered page reads it). Our own refusals are `oidc-<reason>` (server/auth/oidc-provider.ts,
// lib/auth's OidcRefusal); the others are next-auth's codes for a flow it stopped.

const MESSAGES: Record<string, string> = {
  'oidc-no-subject': 'The sign-in provider did not say who you are. Ask the admin to check its configuration.',
  'oidc-no-email': 'The sign-in provider did not give an email address for you, so no account can be made. Ask the admin.',
  'oidc-email-unverified': 'The sign-in provider has not verified your email address. Verify it there, then sign in again.',
  'oidc-domain-not-allowed': 'Your email address is not in a domain allowed on this server. Ask the admin for access.',
  'oidc-email-taken':
    'An account with your email address already exists here and signs in another way. It is not joined to your single sign-on account; sign in as before, or ask the admin.',
  'oidc-disabled': 'Your account on this server is disabled. Ask the admin.',
  'oidc-no-admin-yet': 'This server has no admin yet: its first account must be an admin. Ask the person who runs it.',
  OAuthSignin: 'The sign-in provider could not be reached. Try again in a moment, or ask the admin.',
  OAuthCallback:
    'The sign-in provider’s answer was refused: it was not meant for this server, came from another issuer, or was expired or already used. Sign in again.',
  OAuthCreateAccount: 'Your account could not be created. Ask the admin.',
  Callback: 'The sign-in could not be completed. Sign in again.',
  AccessDenied: 'Access denied. Ask the admin.',
};

/** The words for a single sign-on error code, or null for another code. */
export function describeSingleSignOnError(code: string): string | null {
  return Object.hasOwn(MESSAGES, code) ? MESSAGES[code]! : null;
}
