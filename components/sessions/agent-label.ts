import type { SessionRow } from './session-types';

/**
 * Who wrote a session, in words: `claude-code via api`, `codex` (source and id the same or no
 * source). Null for the person's own web chat (agent `main`, source `web`): nothing to say.
 */
export function agentLabel(row: Pick<SessionRow, 'agentId' | 'source'>): string | null {
  const agent = (row.agentId ?? '').trim();
  const source = (row.source ?? '').trim();
  if (source === 'web' && (agent === '' || agent === 'main')) return null;
  if (agent === '' || agent === source) return source || null;
  return source ? `${agent} via ${source}` : agent;
}

/** The Chats page's filter option for one writer: the web chat has no agent label, so it gets its own. */
export function agentOptionLabel(agent: Pick<SessionRow, 'agentId' | 'source'>): string {
  return agentLabel(agent) ?? 'You, in the web chat';
}
