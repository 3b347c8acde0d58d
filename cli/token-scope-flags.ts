import { isTokenScope, TOKEN_SCOPES, type TokenScope } from '../lib/auth/index.js';
import { usageError, type CommandSpec } from './command-spec.js';

/** `tokens create`'s input: scopes absent means every scope (DESIGN §17), a project limits it to that project's sessions. */
export interface TokenCreateInput {
  name: string;
  expiresAt: number | null;
  scopes?: TokenScope[];
  projectId?: string | null;
}

/** `--scope read,write` (comma-separated, repeatable words), checked here so a typo is a usage error, not a server round trip. */
export function parseScopeFlag(flag: string | undefined, command: CommandSpec): TokenScope[] | undefined {
  if (flag === undefined) return undefined;
  const words = flag.split(',').map((word) => word.trim()).filter(Boolean);
  const unknown = words.find((word) => !isTokenScope(word));
  if (unknown !== undefined || words.length === 0) throw usageError(`--scope: ${unknown === undefined ? 'name at least one scope' : `unknown scope ${unknown}`}; use ${TOKEN_SCOPES.join(', ')}`, command);
  return words as TokenScope[];
}

/** The token.create input: only the fields given. */
export function tokenCreateRequest(input: TokenCreateInput): { name: string; expiresAt?: number; scopes?: TokenScope[]; projectId?: string } {
  return {
    name: input.name,
    ...(input.expiresAt === null ? {} : { expiresAt: input.expiresAt }),
    ...(input.scopes ? { scopes: input.scopes } : {}),
    ...(input.projectId ? { projectId: input.projectId } : {}),
  };
}
