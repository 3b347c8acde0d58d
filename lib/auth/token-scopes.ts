import { AuthError } from './errors.js';

/**
 * What a personal API token may do (DESIGN §17): `read` the API, `write` through it, record through
 * the recording `proxy`, `import` transcripts, use the `mcp` server. A token has one or more; a
 * token stored before scopes existed has none written and means all of them.
 */
export const TOKEN_SCOPES = ['read', 'write', 'proxy', 'import', 'mcp'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** Scopes a project-limited token may carry: the proxy and the import choose the project from the agent's folder, not from the token. */
export const PROJECT_LIMITED_SCOPES: readonly TokenScope[] = ['read', 'write', 'mcp'];

/** What one request may reach: a token's scopes and project, or everything (a cookie, the CLI). */
export interface TokenAccess {
  scopes: readonly TokenScope[];
  /** the only project whose sessions the request reaches; null: every project */
  projectId: string | null;
}

export const FULL_ACCESS: TokenAccess = Object.freeze({ scopes: TOKEN_SCOPES, projectId: null });

export function isTokenScope(value: unknown): value is TokenScope {
  return typeof value === 'string' && (TOKEN_SCOPES as readonly string[]).includes(value);
}

/** A stored token's access: a record without a `scopes` field is from before scopes and has all. */
export function accessOfRecord(record: { scopes?: readonly string[]; projectId?: string | null }): TokenAccess {
  const scopes = record.scopes === undefined ? TOKEN_SCOPES : TOKEN_SCOPES.filter((scope) => record.scopes!.includes(scope));
  return { scopes, projectId: record.projectId ?? null };
}

/** The scopes asked for at creation, checked: one or more known scopes, each once, in the canonical order. */
export function checkScopes(requested: readonly string[] | undefined, projectId: string | null): TokenScope[] {
  if (requested === undefined) return projectId === null ? [...TOKEN_SCOPES] : [...PROJECT_LIMITED_SCOPES];
  const unknown = requested.filter((scope) => !isTokenScope(scope));
  if (unknown.length > 0) throw new AuthError('BAD_REQUEST', `scopes: unknown scope ${JSON.stringify(unknown[0])}; use ${TOKEN_SCOPES.join(', ')}`);
  const scopes = TOKEN_SCOPES.filter((scope) => requested.includes(scope));
  if (scopes.length === 0) throw new AuthError('BAD_REQUEST', `scopes: choose at least one of ${TOKEN_SCOPES.join(', ')}`);
  if (projectId !== null) {
    const outside = scopes.filter((scope) => !PROJECT_LIMITED_SCOPES.includes(scope));
    if (outside.length > 0) {
      throw new AuthError('BAD_REQUEST', `scopes: a token limited to one project can only have ${PROJECT_LIMITED_SCOPES.join(', ')} (not ${outside.join(', ')})`);
    }
  }
  return scopes;
}

export function hasScope(access: TokenAccess, scope: TokenScope): boolean {
  return access.scopes.includes(scope);
}

/** The refusal's words: which scope is missing, and what to do. */
export function missingScopeMessage(scope: TokenScope): string {
  return `this API token lacks the "${scope}" scope; create a token with it in Settings → API tokens`;
}

/** The refusal of a project-limited token reaching past its project. */
export function outsideProjectMessage(projectId: string): string {
  return `this API token is limited to the project "${projectId}"`;
}
