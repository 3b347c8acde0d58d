/**
 * How a user signs in when not with a password: an OpenID Connect provider's subject. A user
 * is found again by (issuer, subject), never by email alone: an email can change hands at the
 * provider, a subject does not.
 */
export interface UserIdentity {
  kind: 'oidc';
  issuer: string;
  subject: string;
}

/** What the Admin page shows of it: never the subject. */
export type SignInMethod = { kind: 'password' } | { kind: 'oidc'; issuer: string };

export function signInMethodOf(identity: UserIdentity | undefined): SignInMethod {
  return identity ? { kind: 'oidc', issuer: identity.issuer } : { kind: 'password' };
}

export function sameIdentity(a: UserIdentity, b: UserIdentity): boolean {
  return a.kind === b.kind && a.issuer === b.issuer && a.subject === b.subject;
}
