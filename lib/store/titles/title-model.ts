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
