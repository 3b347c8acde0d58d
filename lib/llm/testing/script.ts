/**
 * What the test model answers, scripted by markers in the conversation's last user message
 * (for a title request: its first user message), so each test says what it needs:
 *
 * - `[[tool:NAME {json}]]` the reply calls tool NAME with those arguments (several markers:
 *   several calls); once the tool results are in, it answers "Tool result: …" with them.
 * - `[[delay:MS]]` MS between streamed pieces; `[[wait:MS]]` MS before answering at all.
 * - `[[words:N]]` N more words in the reply (a long stream to stop half-way).
 * - `[[fail]]` answer 500; `[[fail:stream]]` break the stream off after two pieces;
 *   `[[fail:once]]` answer 500 the first time this message is asked about, then as usual.
 * - `[[title-wait:MS]]` / `[[title-fail]]` the same for the title request only.
 * - `[[thinking:TEXT]]` (Messages and Responses only) a thinking block before the answer.
 * - `[[fail:event]]` (Messages and Responses only) a 200 stream that ends in an error event.
 * - `[[linger:MS]]` (Messages and Responses only) the stream stays open MS after its terminal
 *   event (`message_stop`, `response.completed`), as real upstreams' can.
 *
 * Anything else: "You said: <last user message>"; a title request: "Title: "<First Four Words>"".
 */
export interface Body {
  messages?: { role?: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }[];
  stream?: boolean;
  model?: string;
  tools?: unknown[];
  max_tokens?: number;
  temperature?: number;
}

export interface Script {
  title: boolean;
  delayMs: number | null;
  waitMs: number;
  fail: 'status' | 'stream' | 'event' | 'once' | null;
  /** ms the stream stays open after its terminal event */
  lingerMs: number;
  /** the text the script was read from (what `[[fail:once]]` remembers) */
  text: string;
}

export interface ScriptedReply {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
}

const TITLE_PROMPT = 'Generate a short, descriptive title';
const MARKER = /\[\[[^\]]*\]\]/g;

function textOf(content: unknown): string {
  return typeof content === 'string' ? content : '';
}

export function isTitleRequest(body: Body): boolean {
  return (body.messages ?? []).some((message) => message.role === 'system' && textOf(message.content).startsWith(TITLE_PROMPT));
}

function scriptText(body: Body): string {
  const messages = body.messages ?? [];
  const users = messages.filter((message) => message.role === 'user');
  return textOf((isTitleRequest(body) ? users[0] : users.at(-1))?.content);
}

function number(text: string, pattern: RegExp): number | null {
  const match = pattern.exec(text);
  return match ? Number(match[1]) : null;
}

export function scriptOf(body: Body): Script {
  const text = scriptText(body);
  const title = isTitleRequest(body);
  if (title) {
    return { title, delayMs: null, waitMs: number(text, /\[\[title-wait:(\d+)\]\]/) ?? 0, fail: /\[\[title-fail\]\]/.test(text) ? 'status' : null, lingerMs: 0, text };
  }
  const fail = /\[\[fail:stream\]\]/.test(text) ? 'stream' : /\[\[fail:event\]\]/.test(text) ? 'event' : /\[\[fail:once\]\]/.test(text) ? 'once' : /\[\[fail\]\]/.test(text) ? 'status' : null;
  return { title, delayMs: number(text, /\[\[delay:(\d+)\]\]/), waitMs: number(text, /\[\[wait:(\d+)\]\]/) ?? 0, fail, lingerMs: number(text, /\[\[linger:(\d+)\]\]/) ?? 0, text };
}

/** The tool calls a message asks for, in order. */
export function toolMarkers(text: string): { name: string; arguments: string }[] {
  const out: { name: string; arguments: string }[] = [];
  for (const match of text.matchAll(/\[\[tool:([A-Za-z0-9_-]+)\s*(\{[\s\S]*?\})?\]\]/g)) {
    out.push({ name: match[1]!, arguments: match[2] ?? '{}' });
  }
  return out;
}

/** The thinking a message asks for (`[[thinking:TEXT]]`), or null. */
export function thinkingOf(body: Body): string | null {
  return /\[\[thinking:([^\]]*)\]\]/.exec(scriptText(body))?.[1] ?? null;
}

/** `offerTools: false` (a request that offers no tools) answers in text even when a marker asks for a call. */
export function replyFor(body: Body, { offerTools = true }: { offerTools?: boolean } = {}): ScriptedReply {
  const messages = body.messages ?? [];
  const text = scriptText(body);
  if (isTitleRequest(body)) {
    const words = text.replace(MARKER, ' ').split(/\s+/).filter(Boolean).slice(0, 4);
    return { text: `Title: "${words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join(' ') || 'Untitled'}"`, toolCalls: [] };
  }
  const lastUser = messages.map((message) => message.role).lastIndexOf('user');
  const results = messages.slice(lastUser + 1).filter((message) => message.role === 'tool');
  const calls = toolMarkers(text);
  if (offerTools && calls.length > 0 && results.length === 0) {
    return { text: '', toolCalls: calls.map((call, index) => ({ id: `call_${index + 1}`, ...call })) };
  }
  if (results.length > 0) {
    return { text: `Tool result: ${results.map((result) => textOf(result.content).slice(0, 300)).join(' | ')}`, toolCalls: [] };
  }
  const extra = number(text, /\[\[words:(\d+)\]\]/) ?? 0;
  const words = Array.from({ length: Math.min(extra, 10_000) }, (_, index) => `word${index + 1}`).join(' ');
  return { text: `You said: ${text}${words ? ` ${words}` : ''}`, toolCalls: [] };
}
