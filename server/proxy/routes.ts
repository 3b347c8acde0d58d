import type { UpstreamKind } from '@/lib/auth/index';
import type { Wire } from '@/lib/proxy/types';
import { decodePathSegment } from '@/server/http/decode-path-segment';

/** What `/proxy/<upstream>/<path>` asks for, and where it goes upstream. */
export interface ProxyRoute {
  upstream: string;
  /** recorded exchanges have a wire; the rest (models, token counts) is only forwarded */
  wire: Wire | null;
  /** which provider's API the path belongs to */
  kind: UpstreamKind;
  /** appended to the upstream's base URL (anthropic: the root; openai: with /v1), query kept */
  upstreamPath: string;
  method: 'GET' | 'POST';
}

const ENDPOINTS: { path: string; method: 'GET' | 'POST'; kind: UpstreamKind; wire: Wire | null }[] = [
  { path: 'v1/messages', method: 'POST', kind: 'anthropic', wire: 'anthropic' },
  { path: 'v1/messages/count_tokens', method: 'POST', kind: 'anthropic', wire: null },
  { path: 'v1/models', method: 'GET', kind: 'anthropic', wire: null },
  { path: 'v1/responses', method: 'POST', kind: 'openai', wire: 'responses' },
  { path: 'v1/chat/completions', method: 'POST', kind: 'openai', wire: 'chat' },
  { path: 'v1/models', method: 'GET', kind: 'openai', wire: null },
];

export const PROXY_PREFIX = '/proxy/';

/**
 * The route of a proxy URL for an upstream of `kind`, or why not: `unknown` (no such endpoint
 * for that provider), `method` (the endpoint exists, with another method).
 */
export function matchProxyRoute(method: string, url: string, kindOf: (upstream: string) => UpstreamKind | null): ProxyRoute | { error: 'unknown' | 'method' | 'no_upstream'; upstream: string; kind: UpstreamKind | null } {
  const [pathname = '', query = ''] = url.slice(PROXY_PREFIX.length).split(/\?(.*)/s);
  const slash = pathname.indexOf('/');
  const rawUpstream = slash === -1 ? pathname : pathname.slice(0, slash);
  const upstream = decodePathSegment(rawUpstream);
  // Malformed escapes name no upstream: a 404 like any unknown name, not a throw (a 502 and a stack).
  if (upstream === null) return { error: 'no_upstream', upstream: rawUpstream, kind: null };
  const rest = slash === -1 ? '' : pathname.slice(slash + 1).replace(/\/+$/, '');
  const kind = kindOf(upstream);
  if (!kind) return { error: 'no_upstream', upstream, kind: null };
  const candidates = ENDPOINTS.filter((endpoint) => endpoint.kind === kind && endpoint.path === rest);
  if (candidates.length === 0) return { error: 'unknown', upstream, kind };
  const endpoint = candidates.find((candidate) => candidate.method === method);
  if (!endpoint) return { error: 'method', upstream, kind };
  // An OpenAI base URL already ends in /v1; Anthropic's is the API root.
  const path = kind === 'openai' ? rest.replace(/^v1\//, '') : rest;
  return { upstream, wire: endpoint.wire, kind, upstreamPath: `/${path}${query ? `?${query}` : ''}`, method: endpoint.method };
}
