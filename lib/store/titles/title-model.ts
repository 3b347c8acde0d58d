/** The model behind automatic titles; lib/llm provides the real one, tests a loopback server. */
export interface TitleRequest {
  system: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
  maxTokens: number;
  temperature: number;
}

export interface TitleModel {
  complete(request: TitleRequest): Promise<string>;
}

export const TITLE_SYSTEM_PROMPT =
  'Generate a short, descriptive title (3-7 words) for this conversation. Return ONLY the title, no quotes, no prefix.';

/** Turn numbers (user messages on the current branch) after which a model title is generated. */
export const RETITLE_AT_TURNS: readonly number[] = [1, 6, 16, 40];

/**
 * A session an agent or a client wrote (recorded by the proxy, imported, made through the API
 * under an agent's name), as opposed to the web chat's own (agent `main` or none, source `web` or
 * none; the sidebar shows no agent label for those). Its prompts were meant for the agent's model,
 * not ours: they go to the title model only when the user said so.
 */
export function isAgentSession(meta: { agent_id?: unknown; source?: unknown }): boolean {
  const agent = typeof meta.agent_id === 'string' ? meta.agent_id.trim() : '';
  const source = typeof meta.source === 'string' ? meta.source.trim() : '';
  return !((agent === '' || agent === 'main') && (source === '' || source === 'web'));
}
