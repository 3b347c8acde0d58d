import { describe, expect, it } from 'vitest';
import { domainAllowed, groupsOf, mapOidcClaims } from './oidc-claims.js';
import { discoveryUrl, readOidcConfig } from './oidc-config.js';

const ISSUER = 'https://id.example.org';
const base = { iss: ISSUER, sub: 'subject-1', email: 'Ada@Example.org', email_verified: true };

describe('mapOidcClaims', () => {
  it('takes issuer, subject and the lower-case email; no admin group leaves the role alone', () => {
    expect(mapOidcClaims(base, { allowedDomains: null, adminGroup: null })).toEqual({ ok: true, issuer: ISSUER, subject: 'subject-1', email: 'ada@example.org', admin: null });
  });

  it('makes admin exactly when the groups claim holds the admin group (a list or one string)', () => {
    const policy = { allowedDomains: null, adminGroup: 'em-admins' };
    expect(mapOidcClaims({ ...base, groups: ['staff', 'em-admins'] }, policy)).toMatchObject({ ok: true, admin: true });
    expect(mapOidcClaims({ ...base, groups: 'em-admins' }, policy)).toMatchObject({ ok: true, admin: true });
    expect(mapOidcClaims({ ...base, groups: ['staff', 'em-admins-2', 'EM-ADMINS'] }, policy)).toMatchObject({ ok: true, admin: false });
    expect(mapOidcClaims(base, policy)).toMatchObject({ ok: true, admin: false });
    expect(mapOidcClaims({ ...base, groups: [7, null, { name: 'em-admins' }] }, policy)).toMatchObject({ ok: true, admin: false });
  });

  it('admits only the allowed domains, exactly (no subdomain, no look-alike)', () => {
    const policy = { allowedDomains: ['example.org', 'other.example'], adminGroup: null };
    expect(mapOidcClaims(base, policy)).toMatchObject({ ok: true });
    expect(mapOidcClaims({ ...base, email: 'bo@OTHER.example' }, policy)).toMatchObject({ ok: true, email: 'bo@other.example' });
    for (const email of ['eve@sub.example.org', 'eve@example.org.evil.test', 'eve@notexample.org', 'example.org@evil.test']) {
      expect(mapOidcClaims({ ...base, email }, policy), email).toEqual({ ok: false, reason: 'domain-not-allowed' });
    }
  });

  it('refuses a token without subject or email, and an email the provider says is unverified', () => {
    const policy = { allowedDomains: null, adminGroup: null };
    expect(mapOidcClaims({ ...base, sub: '' }, policy)).toEqual({ ok: false, reason: 'no-subject' });
    expect(mapOidcClaims({ ...base, iss: undefined }, policy)).toEqual({ ok: false, reason: 'no-subject' });
    expect(mapOidcClaims({ ...base, email: undefined }, policy)).toEqual({ ok: false, reason: 'no-email' });
    expect(mapOidcClaims({ ...base, email: 'not-an-address' }, policy)).toEqual({ ok: false, reason: 'no-email' });
    expect(mapOidcClaims({ ...base, email_verified: false }, policy)).toEqual({ ok: false, reason: 'email-unverified' });
    expect(mapOidcClaims({ ...base, email_verified: 'false' }, policy)).toEqual({ ok: false, reason: 'email-unverified' });
    // Many providers do not send the claim at all.
    expect(mapOidcClaims({ ...base, email_verified: undefined }, policy)).toMatchObject({ ok: true });
  });

  it('reads groups and domains as documented', () => {
    expect(groupsOf({ groups: ['a', 1, 'b'] })).toEqual(['a', 'b']);
    expect(groupsOf({})).toEqual([]);
    expect(domainAllowed('a@x.org', null)).toBe(true);
    expect(domainAllowed('a@b@x.org', ['x.org'])).toBe(true);
  });
});

describe('readOidcConfig', () => {
  const full = { OPENPROGRAM_OIDC_ISSUER: 'https://id.example.org:8443/realms/team', OPENPROGRAM_OIDC_CLIENT_ID: 'em', OPENPROGRAM_OIDC_CLIENT_SECRET: 's3cret' };

  it('is off when nothing is set, and says what is missing when only part is', () => {
    expect(readOidcConfig({})).toEqual({ config: null, problems: [] });
    expect(readOidcConfig({ ...full, OPENPROGRAM_OIDC_CLIENT_SECRET: ' ' })).toEqual({
      config: null,
      problems: ['single sign-on is off: OPENPROGRAM_OIDC_CLIENT_SECRET is not set'],
    });
    expect(readOidcConfig({ ...full, OPENPROGRAM_OIDC_ISSUER: 'id.example.org' }).problems).toEqual(['single sign-on is off: OPENPROGRAM_OIDC_ISSUER is not a URL (id.example.org)']);
    expect(readOidcConfig({ ...full, OPENPROGRAM_OIDC_ISSUER: 'ftp://id.example.org' }).config).toBeNull();
  });

  it('names the button after the issuer host unless OPENPROGRAM_OIDC_NAME is set; parses domains and the admin group', () => {
    expect(readOidcConfig(full).config).toEqual({ ...{ issuer: full.OPENPROGRAM_OIDC_ISSUER, clientId: 'em', clientSecret: 's3cret' }, name: 'id.example.org:8443', allowedDomains: null, adminGroup: null });
    const config = readOidcConfig({ ...full, OPENPROGRAM_OIDC_NAME: ' Acme SSO ', OPENPROGRAM_OIDC_ALLOWED_DOMAINS: ' Example.org, @other.example ,,', OPENPROGRAM_OIDC_ADMIN_GROUP: 'em-admins' }).config;
    expect(config).toMatchObject({ name: 'Acme SSO', allowedDomains: ['example.org', 'other.example'], adminGroup: 'em-admins' });
    expect(readOidcConfig({ ...full, OPENPROGRAM_OIDC_ALLOWED_DOMAINS: ' , ' }).config?.allowedDomains).toBeNull();
  });

  it('discovers at the issuer plus the well-known path', () => {
    expect(discoveryUrl('https://id.example.org/realms/team/')).toBe('https://id.example.org/realms/team/.well-known/openid-configuration');
    expect(discoveryUrl('http://127.0.0.1:9000')).toBe('http://127.0.0.1:9000/.well-known/openid-configuration');
  });
});
