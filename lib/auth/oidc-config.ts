/**
 * Single sign-on through an OpenID Connect provider (DESIGN §17), read from the environment:
 * on only when the issuer, the client id and the client secret are all set.
 */
export interface OidcConfig {
  /** the issuer's URL as configured; discovery is `<issuer>/.well-known/openid-configuration` */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** the sign-in button's "Sign in with <name>": OPENPROGRAM_OIDC_NAME, else the issuer's host */
  name: string;
  /** lower-case email domains a new or returning user must have; null: any */
  allowedDomains: string[] | null;
  /** the `groups` claim value that makes a user admin; null: roles are left as they are */
  adminGroup: string | null;
}

export interface OidcConfigReading {
  config: OidcConfig | null;
  /** what an operator should be told at start-up (a half-set configuration, a bad URL) */
  problems: string[];
}

const REQUIRED = ['OPENPROGRAM_OIDC_ISSUER', 'OPENPROGRAM_OIDC_CLIENT_ID', 'OPENPROGRAM_OIDC_CLIENT_SECRET'] as const;

function setting(env: Record<string, string | undefined>, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

/** `example.org, @Other.example` → ['example.org', 'other.example']; empty → null. */
export function parseAllowedDomains(value: string | null): string[] | null {
  if (value === null) return null;
  const domains = value
    .split(',')
    .map((part) => part.trim().toLowerCase().replace(/^@/, ''))
    .filter((part) => part !== '');
  return domains.length > 0 ? domains : null;
}

export function readOidcConfig(env: Record<string, string | undefined>): OidcConfigReading {
  const present = REQUIRED.filter((name) => setting(env, name) !== null);
  if (present.length === 0) return { config: null, problems: [] };
  if (present.length < REQUIRED.length) {
    const missing = REQUIRED.filter((name) => !present.includes(name));
    return { config: null, problems: [`single sign-on is off: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`] };
  }
  const issuer = setting(env, 'OPENPROGRAM_OIDC_ISSUER')!;
  let issuerUrl: URL;
  try {
    issuerUrl = new URL(issuer);
  } catch {
    return { config: null, problems: [`single sign-on is off: OPENPROGRAM_OIDC_ISSUER is not a URL (${issuer})`] };
  }
  if (issuerUrl.protocol !== 'https:' && issuerUrl.protocol !== 'http:') {
    return { config: null, problems: [`single sign-on is off: OPENPROGRAM_OIDC_ISSUER must be an http(s) URL (${issuer})`] };
  }
  return {
    config: {
      issuer,
      clientId: setting(env, 'OPENPROGRAM_OIDC_CLIENT_ID')!,
      clientSecret: setting(env, 'OPENPROGRAM_OIDC_CLIENT_SECRET')!,
      name: setting(env, 'OPENPROGRAM_OIDC_NAME') ?? issuerUrl.host,
      allowedDomains: parseAllowedDomains(setting(env, 'OPENPROGRAM_OIDC_ALLOWED_DOMAINS')),
      adminGroup: setting(env, 'OPENPROGRAM_OIDC_ADMIN_GROUP'),
    },
    problems: [],
  };
}

/** Where openid-client discovers the provider: the issuer with the well-known path (RFC 8414 §3 for a path-less issuer). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}
