import type { ToolChatMessage } from './chat-client.js';

/**
 * The branch as the model sees it: user and assistant messages in order; an assistant message
 * that called tools carries its calls, followed by one tool message per answered call. A call
 * without a stored answer (a turn cut short) is dropped, since the API refuses unanswered calls.
 */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
}

function storedToolCalls(metadata: Record<string, unknown>): StoredToolCall[] {
  const raw = metadata['tool_calls'];
  if (!Array.isArray(raw)) return [];
  return raw.filter(
    (call): call is StoredToolCall =>
      !!call && typeof call === 'object' && typeof call.id === 'string' && typeof call.name === 'string' && typeof call.arguments === 'string',
  );
}

export interface Attachment {
  id: string;
  name: string;
  size: number;
  mime: string;
  /** the file's text, when it is small text the model can read */
  text?: string;
}

/** A user message with its attachments, as the model reads it. */
export function userContent(content: string, attachments: readonly Attachment[]): string {
  if (attachments.length === 0) return content;
  const parts = attachments.map((file) =>
    file.text !== undefined ? `<file name="${file.name}">\n${file.text}\n</file>` : `[attachment: ${file.name} (${file.mime}, ${file.size} bytes)]`,
  );
  return `${content}\n\n${parts.join('\n')}`;
}

/** What the model reads of a branch message (the store's branch messages have this shape). */
export interface ConversationMessage {
  id: string;
  role: string;
  content: string;
  metadata: Record<string, unknown>;
  toolCalls: readonly { content: string; metadata: Record<string, unknown> }[];
}

export function modelMessages(system: string, branch: readonly ConversationMessage[], attachments: ReadonlyMap<string, Attachment[]> = new Map()): ToolChatMessage[] {
  const out: ToolChatMessage[] = [{ role: 'system', content: system }];
  for (const message of branch) {
    if (message.role === 'user') {
      out.push({ role: 'user', content: userContent(message.content, attachments.get(message.id) ?? []) });
      continue;
    }
    if (message.role !== 'assistant') continue;
    const answers = new Map<string, string>();
    for (const tool of message.toolCalls) {
      const callId = tool.metadata['tool_call_id'];
      if (typeof callId === 'string') answers.set(callId, tool.content);
    }
    const calls = storedToolCalls(message.metadata).filter((call) => answers.has(call.id));
    if (calls.length === 0) {
      if (message.content !== '') out.push({ role: 'assistant', content: message.content });
      continue;
    }
    out.push({
      role: 'assistant',
      content: message.content === '' ? null : message.content,
      tool_calls: calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
    });
    for (const call of calls) out.push({ role: 'tool', tool_call_id: call.id, content: answers.get(call.id)! });
  }
  return out;
}
