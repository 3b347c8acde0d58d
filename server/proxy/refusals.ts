import type http from 'node:http';
import type { UpstreamKind } from '@/lib/auth/index';
import { agentOf } from '@/lib/proxy/session-identity';

/** The Connect card's tabs: which agent an exchange came from. */
export type ConnectAgentId = 'claude-code' | 'codex' | 'anthropic-sdk' | 'openai-sdk';

export interface ProxyRefusal {
  at: number;
  status: number;
  message: string;
}

/**
 * The last exchange the proxy refused per user and agent (no stored key): nothing reaches the
 * store then, so without this the Connect card would still say "no exchange yet" while the
 * agent fails. In memory only, on globalThis: the proxy (serve.ts) and the tRPC routes (Next's
 * copy of the modules) are two module graphs of one process.
 */
const KEY = Symbol.for('entity-memory.proxy-refusals');
const holder = globalThis as typeof globalThis & { [KEY]?: Map<string, Map<ConnectAgentId, ProxyRefusal>> };
const refusals = (holder[KEY] ??= new Map());

/** The tab an agent's request belongs to: Claude Code and Codex by their headers, else the SDK of the wire. */
export function connectAgentOf(headers: http.IncomingHttpHeaders, kind: UpstreamKind): ConnectAgentId {
  const header = (name: string) => {
    const value = headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? null;
  };
  // A refused request's body is never read: its headers alone say which agent sent it.
  const agent = agentOf(header, { metadataUserId: null } as Parameters<typeof agentOf>[1]);
  if (agent) return agent;
  return kind === 'anthropic' ? 'anthropic-sdk' : 'openai-sdk';
}

export function noteRefusal(userId: string, agent: ConnectAgentId, refusal: ProxyRefusal): void {
  let mine = refusals.get(userId);
  if (!mine) refusals.set(userId, (mine = new Map()));
  mine.set(agent, refusal);
}

export function lastRefusal(userId: string, agent: ConnectAgentId): ProxyRefusal | null {
  return refusals.get(userId)?.get(agent) ?? null;
}
