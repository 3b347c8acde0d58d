/** The agent a recorded session came from (its `source`, DESIGN §12), as the sidebar names it. */
const PROXY_AGENTS: Record<string, string> = {
  'proxy:claude-code': 'Claude Code',
  'proxy:codex': 'Codex',
  'proxy:anthropic': 'Anthropic SDK',
  'proxy:openai': 'OpenAI SDK',
};

export function agentLabel(source: string | null | undefined): string | null {
  return source ? (PROXY_AGENTS[source] ?? null) : null;
}
