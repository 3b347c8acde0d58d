import type { IncomingHttpHeaders } from 'node:http';
import { defaultUpstreamUrl, hasScope, missingScopeMessage, type AuthStore, type InstanceKeys, type Upstream, type UserRecord } from '@/lib/auth/index';


/** The header that carries our token when the agent keeps its own provider key. */
export const MEMORY_TOKEN_HEADER = 'x-entity-memory-token';
export const MEMORY_SESSION_HEADER = 'x-entity-memory-session';

export type Credentials =
  | { ok: true; user: UserRecord; mode: 'stored-key' | 'pass-through' }
  /** 401: no usable token; 403: a token without the proxy scope */
  | { ok: false; status: 401 | 403; message: string };

const one = (value: string | string[] | undefined): string | null => (Array.isArray(value) ? (value[0] ?? null) : (value ?? null));

/** The agent's API key: `x-api-key` (Anthropic's SDKs) or `Authorization: Bearer` (OpenAI's). */
export function agentKeyOf(headers: IncomingHttpHeaders): string | null {
  const apiKey = one(headers['x-api-key'])?.trim();
  if (apiKey) return apiKey;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(one(headers['authorization']) ?? '');
  return bearer ? bearer[1]! : null;
}

/**
 * DESIGN §12 "Who": our token in x-entity-memory-token (the agent's own key passes through), or
 * our token as the API key (the user's stored key is sent instead). Anything else is refused
 * with what to set, before a byte goes upstream.
 */
export function proxyCaller(headers: IncomingHttpHeaders, auth: AuthStore): Credentials {
  const memoryToken = one(headers[MEMORY_TOKEN_HEADER])?.trim();
  if (memoryToken) {
    const found = auth.authenticateToken(memoryToken);
    if (!found) return { ok: false, status: 401, message: `The Entity Memory token in ${MEMORY_TOKEN_HEADER} is unknown, expired or revoked. Create one in Settings → API tokens.` };
    if (!hasScope(found.access, 'proxy')) return { ok: false, status: 403, message: missingScopeMessage('proxy') };
    return { ok: true, user: found.user, mode: 'pass-through' };
  }
  const key = agentKeyOf(headers);
  if (!key) return { ok: false, status: 401, message: `No API key. Use an Entity Memory API token as the API key (Settings → Connect an agent), or send one in ${MEMORY_TOKEN_HEADER} beside your own provider key.` };
  const found = auth.authenticateToken(key);
  if (!found) {
    return { ok: false, status: 401, message: `The API key is not an Entity Memory token (or it is expired or revoked). Use a token from Settings → Connect an agent, or keep your provider key and send the token in ${MEMORY_TOKEN_HEADER}.` };
  }
  if (!hasScope(found.access, 'proxy')) return { ok: false, status: 403, message: missingScopeMessage('proxy') };
  return { ok: true, user: found.user, mode: 'stored-key' };
}

/** Our token as the API key needs the user's stored provider key; this says what to do without one. */
export function missingKeyMessage(upstream: Upstream): string {
  return `No ${upstream.kind === 'anthropic' ? 'Anthropic' : 'OpenAI'} key is stored for the upstream "${upstream.name}". Add it in Settings → Connect an agent, or keep your own key and send your token in ${MEMORY_TOKEN_HEADER}.`;
}

/**
 * The key the proxy sends for a caller whose token is the API key: the user's own stored key,
 * else (issue 31 item 1) the admin's instance key when the admin's switch for the user is on. The
 * instance key goes only to the built-in upstream at the instance's own URL: never to a URL a
 * user typed, where it could be read.
 */
export function keyToSend(userId: string, upstream: Upstream, instanceKeys: InstanceKeys, env: Readonly<Record<string, string | undefined>> = process.env): { key: string; from: 'own' | 'instance' } | null {
  if (upstream.key) return { key: upstream.key, from: 'own' };
  if (!instanceKeyServes(upstream, env)) return null;
  const key = instanceKeys.keyFor(userId, upstream.kind);
  return key ? { key, from: 'instance' } : null;
}

/** Whether the instance key may go to this upstream: the built-in one of its kind, at the instance's default URL. */
export function instanceKeyServes(upstream: Pick<Upstream, 'name' | 'kind' | 'baseUrl'>, env: Readonly<Record<string, string | undefined>> = process.env): boolean {
  return upstream.name === upstream.kind && upstream.baseUrl === defaultUpstreamUrl(upstream.kind, env);
}
