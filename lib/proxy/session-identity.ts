import { createHash } from 'node:crypto';
import type { ParsedRequest, Wire } from './types.js';

export type Agent = 'claude-code' | 'codex';

export interface SessionChoice {
  /** the session id, or null: decided by the longest recorded prefix */
  sessionId: string | null;
  /** which header or field named it */
  via: 'x-entity-memory-session' | 'x-claude-code-session-id' | 'session-id' | 'metadata.user_id' | null;
  agent: Agent | null;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const MAX_ID = 128;

/**
 * `<prefix>-<raw>` when that is a valid session id; an id that would pass 128 characters (or
 * holds other characters) becomes `<prefix>-h<first 40 hex of its SHA-256>`, never cut.
 */
export function prefixedId(prefix: string, raw: string): string {
  const candidate = `${prefix}-${raw}`;
  if (candidate.length <= MAX_ID && ID.test(candidate)) return candidate;
  return `${prefix}-h${createHash('sha256').update(raw).digest('hex').slice(0, 40)}`;
}

/** A session that no header names: `px-<first 32 hex of the fingerprint of its first message>`. */
export function prefixSessionId(firstFingerprint: string): string {
  return `px-${firstFingerprint.slice(0, 32)}`;
}

type HeaderGet = (name: string) => string | null;

export function agentOf(header: HeaderGet, parsed: ParsedRequest): Agent | null {
  const userAgent = header('user-agent') ?? '';
  if (header('x-claude-code-session-id') || /claude-cli|claude-code/i.test(userAgent)) return 'claude-code';
  if (header('session-id') || header('session_id') || /codex/i.test(userAgent) || /codex/i.test(header('originator') ?? '')) return 'codex';
  if (parsed.metadataUserId && /session_[0-9a-f-]{8,}/i.test(parsed.metadataUserId)) return 'claude-code';
  return null;
}

/** DESIGN §12 "Which session", first that applies (previous_response_id and the prefix come later). */
export function chooseSession(header: HeaderGet, parsed: ParsedRequest): SessionChoice {
  const agent = agentOf(header, parsed);
  const explicit = header('x-entity-memory-session');
  if (explicit) return { sessionId: ID.test(explicit) ? explicit : prefixedId('px', explicit), via: 'x-entity-memory-session', agent };
  const claude = header('x-claude-code-session-id');
  if (claude) return { sessionId: prefixedId('cc', claude), via: 'x-claude-code-session-id', agent: 'claude-code' };
  const codex = header('session-id') ?? header('session_id');
  if (codex) return { sessionId: prefixedId('codex', codex), via: 'session-id', agent: 'codex' };
  const inMetadata = parsed.metadataUserId ? /session_([0-9a-fA-F-]{8,})/.exec(parsed.metadataUserId) : null;
  if (inMetadata) return { sessionId: prefixedId('cc', inMetadata[1]!), via: 'metadata.user_id', agent: 'claude-code' };
  return { sessionId: null, via: null, agent };
}

/** `source` of a recorded session: `proxy:claude-code`, `proxy:codex`, else by wire. */
export function sourceOf(agent: Agent | null, wire: Wire): string {
  if (agent) return `proxy:${agent}`;
  return wire === 'anthropic' ? 'proxy:anthropic' : 'proxy:openai';
}
