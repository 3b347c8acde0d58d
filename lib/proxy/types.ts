/** The three wire formats the proxy speaks (DESIGN §12). */
export type Wire = 'anthropic' | 'responses' | 'chat';

export interface ToolCall {
  id: string;
  name: string;
  /** the arguments as JSON text, as the model wrote them */
  arguments: string;
}

export interface Thinking {
  text: string;
  /** Anthropic's signature (or Responses' encrypted content), kept so the block can be sent back */
  signature?: string;
}

/** Inline media of a request (base64 data or a URL), kept apart from the text. */
export interface Media {
  kind: 'image' | 'document' | 'audio' | 'file';
  mime: string;
  /** base64, when inline */
  data?: string;
  url?: string;
}

/**
 * One message of a request's conversation, in one shape whatever the wire: a person's message,
 * the model's message (text, thinking, tool calls) or the result of one tool call.
 */
export type Step =
  | { role: 'user'; text: string; media: Media[]; reminders: string[] }
  | { role: 'assistant'; text: string; thinking: Thinking[]; toolCalls: ToolCall[] }
  | { role: 'tool'; callId: string; content: string; isError: boolean };

/** A request, read: what the recording needs of it. */
export interface ParsedRequest {
  wire: Wire;
  model: string | null;
  stream: boolean;
  /** the system prompt(s), joined: stored once per distinct text, never part of identity */
  system: string | null;
  steps: Step[];
  tools: string[];
  previousResponseId: string | null;
  /** `metadata.user_id` (Claude Code puts its session id there) */
  metadataUserId: string | null;
}

export type ExchangeOutcome =
  /** the last byte came and the answer was a success */
  | 'complete'
  /** an HTTP error status from the upstream, passed through */
  | 'upstream_error'
  /** a 2xx whose body reported an error: an error event after a 200 (set when planning, from the reply) */
  | 'error_event'
  /** the client went away before the end */
  | 'client_gone'
  /** the upstream sent nothing for too long, or broke off */
  | 'timeout'
  /** the exchange lasted past the proxy's overall deadline (OPENPROGRAM_PROXY_DEADLINE_MS) and was ended */
  | 'deadline'
  | 'upstream_unreachable'
  | 'too_large';

/** The model's answer, put back together from what the upstream sent. */
export interface AssembledReply {
  id: string | null;
  model: string | null;
  text: string;
  thinking: Thinking[];
  toolCalls: ToolCall[];
  stopReason: string | null;
  usage: Record<string, unknown> | null;
  /** an error the upstream reported (an error event, or an error body) */
  error: string | null;
  /** false when the stream ended before its final event */
  finished: boolean;
}

export function emptyReply(): AssembledReply {
  return { id: null, model: null, text: '', thinking: [], toolCalls: [], stopReason: null, usage: null, error: null, finished: false };
}
