import type { OidcConfig } from './oidc-config.js';

/** Why a sign-in through the provider was refused; the sign-in page says each in words. */
export type OidcRefusal = 'no-subject' | 'no-email' | 'email-unverified' | 'domain-not-allowed' | 'email-taken' | 'disabled' | 'no-admin-yet';

export type OidcClaimsDecision =
  | {
      ok: true;
      issuer: string;
      subject: string;
      email: string;
      /** from the groups claim; null when no admin group is configured (the role is left alone) */
      admin: boolean | null;
    }
  | { ok: false; reason: OidcRefusal };

export type OidcPolicy = Pick<OidcConfig, 'allowedDomains' | 'adminGroup'>;

function claimString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** Some providers send booleans as strings ("false"). */
function claimFalse(value: unknown): boolean {
  return value === false || value === 'false';
}

/** The email's domain, after the last @, lower-case. */
export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** Exact domains: `example.org` does not admit `sub.example.org`. */
export function domainAllowed(email: string, allowedDomains: string[] | null): boolean {
  return allowedDomains === null || allowedDomains.includes(emailDomain(email));
}

/** `groups` as most providers send it (a list), or a single string. */
export function groupsOf(claims: Record<string, unknown>): string[] {
  const groups = claims.groups;
  if (Array.isArray(groups)) return groups.filter((group): group is string => typeof group === 'string');
  return typeof groups === 'string' ? [groups] : [];
}

/**
 * What the ID token's claims (already checked by openid-client: signature, issuer, audience,
 * expiry) say about the user: who (issuer + subject), which email, and the role.
 */
export function mapOidcClaims(claims: Record<string, unknown>, policy: OidcPolicy): OidcClaimsDecision {
  const issuer = claimString(claims.iss);
  const subject = claimString(claims.sub);
  if (!issuer || !subject) return { ok: false, reason: 'no-subject' };
  const email = claimString(claims.email)?.toLowerCase() ?? null;
  if (!email || !email.includes('@')) return { ok: false, reason: 'no-email' };
  // An unverified address could be anyone's: it would take that person's account name here.
  if (claimFalse(claims.email_verified)) return { ok: false, reason: 'email-unverified' };
  if (!domainAllowed(email, policy.allowedDomains)) return { ok: false, reason: 'domain-not-allowed' };
  const admin = policy.adminGroup === null ? null : groupsOf(claims).includes(policy.adminGroup);
  return { ok: true, issuer, subject, email, admin };
}
