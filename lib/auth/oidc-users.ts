import { randomBytes } from 'node:crypto';
import { AuthError } from './errors.js';
import { mapOidcClaims, type OidcPolicy, type OidcRefusal } from './oidc-claims.js';
import { hashPassword } from './password.js';
import type { UserIdentity } from './user-identity.js';
import type { UserRecord, UserStore } from './users.js';

export type OidcSignInResult = { ok: true; user: UserRecord; created: boolean } | { ok: false; reason: OidcRefusal; email: string | null };

/**
 * A sign-in through the provider, after its ID token was checked: the user found by issuer and
 * subject (their role following the groups claim), or created at the first sign-in. An existing
 * account with the same email is never taken over: a password account, or another subject's,
 * refuses the sign-in (`email-taken`), since the provider's word on an email is not the
 * account holder's (docs/decisions.md, "Single sign-on links by subject").
 */
export async function signInWithOidc(users: UserStore, claims: Record<string, unknown>, policy: OidcPolicy): Promise<OidcSignInResult> {
  const decision = mapOidcClaims(claims, policy);
  if (!decision.ok) return { ok: false, reason: decision.reason, email: typeof claims.email === 'string' ? claims.email : null };
  const { email, admin } = decision;
  const identity: UserIdentity = { kind: 'oidc', issuer: decision.issuer, subject: decision.subject };
  const existing = users.findByIdentity(identity);
  if (existing) {
    if (existing.disabled) return { ok: false, reason: 'disabled', email };
    if (admin !== null && existing.admin !== admin) await users.setAdmin(existing.id, admin);
    return { ok: true, user: existing, created: false };
  }
  if (users.findByEmail(email)) return { ok: false, reason: 'email-taken', email };
  // Nobody could administer a server whose first user came in without the admin group.
  if (!users.hasUsers() && admin !== true) return { ok: false, reason: 'no-admin-yet', email };
  // A hash of random bytes: the account never signs in with a password.
  const passwordHash = await hashPassword(randomBytes(32).toString('base64url'));
  try {
    const user = await users.createWithIdentity({ email, admin: admin ?? false, identity, passwordHash });
    return { ok: true, user, created: true };
  } catch (error) {
    // Another sign-in took the email (or this subject) while this one was hashing.
    if (error instanceof AuthError && error.code === 'CONFLICT') {
      const raced = users.findByIdentity(identity);
      return raced ? { ok: true, user: raced, created: false } : { ok: false, reason: 'email-taken', email };
    }
    throw error;
  }
}
