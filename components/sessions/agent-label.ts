import type { SessionRow } from './session-types';

/** The agent a recorded session came from (its `source`, DESIGN §12), as the sidebar names it. */
const PROXY_AGENTS: Record<string, string> = {
  'proxy:claude-code': 'Claude Code',
  'proxy:codex': 'Codex',
  'proxy:anthropic': 'Anthropic SDK',
  'proxy:openai': 'OpenAI SDK',
};

/**
 * Who wrote a session, in words: `claude-code via api`, `codex` (source and id the same or no
 * source). Null for the defaults (agent `main`, source `web` or none: the person's own chat or a
 * client that said nothing): "main" would tell a reader nothing.
 */
export function agentLabel(row: Pick<SessionRow, 'agentId' | 'source'>): string | null {
  const agent = (row.agentId ?? '').trim();
  const source = (row.source ?? '').trim();
  const recorded = PROXY_AGENTS[source];
  if (recorded) return recorded;
  if ((agent === '' || agent === 'main') && (source === '' || source === 'web')) return null;
  if (agent === '' || agent === source) return source || null;
  return source ? `${agent} via ${source}` : agent;
}

/** The Chats page's filter option for one writer: the web chat has no agent label, so it gets its own. */
export function agentOptionLabel(agent: Pick<SessionRow, 'agentId' | 'source'>): string {
  return agentLabel(agent) ?? (agent.source === 'web' ? 'You, in the web chat' : 'Unnamed agent');
}
