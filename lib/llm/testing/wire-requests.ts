import { createHash } from 'node:crypto';
import type { Body } from './script.js';

/**
 * The test model's script (script.ts) reads a chat-completions conversation; these turn a
 * Messages or Responses request into one, so every wire format answers the same markers.
 */

type Block = { type?: string; text?: string; id?: string; name?: string; input?: unknown; tool_use_id?: string; content?: unknown };
type ChatMessage = NonNullable<Body['messages']>[number];

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;

function blocksOf(content: unknown): Block[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content.filter((block) => block && typeof block === 'object') as Block[]) : [];
}

function textOfBlocks(content: unknown, types = ['text', 'input_text', 'output_text']): string {
  return blocksOf(content)
    .filter((block) => types.includes(block.type ?? '') && typeof block.text === 'string')
    .map((block) => block.text!)
    .join('\n');
}

/** Claude Code wraps its context in `<system-reminder>` blocks; the script reads what the person typed. */
function typedText(content: unknown): string {
  return textOfBlocks(content).replace(REMINDER, '').trim();
}

export interface AnthropicRequest {
  model?: string;
  system?: unknown;
  messages?: { role?: string; content?: unknown }[];
  tools?: unknown[];
  stream?: boolean;
  max_tokens?: number;
}

export function chatFromAnthropic(body: AnthropicRequest): Body {
  const messages: ChatMessage[] = [];
  const system = typeof body.system === 'string' ? body.system : textOfBlocks(body.system);
  if (system) messages.push({ role: 'system', content: system });
  for (const message of body.messages ?? []) {
    const blocks = blocksOf(message.content);
    if (message.role === 'assistant') {
      const calls = blocks
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) } }));
      messages.push({ role: 'assistant', content: textOfBlocks(blocks), ...(calls.length > 0 ? { tool_calls: calls } : {}) });
      continue;
    }
    const results = blocks.filter((block) => block.type === 'tool_result');
    if (message.role === 'user' && results.length > 0) {
      // Text beside tool results is the agent's reminder, not a new prompt.
      for (const result of results) {
        const content = typeof result.content === 'string' ? result.content : textOfBlocks(result.content);
        messages.push({ role: 'tool', tool_call_id: result.tool_use_id, content });
      }
      continue;
    }
    messages.push({ role: message.role ?? 'user', content: typedText(blocks) });
  }
  return { model: body.model, messages, stream: body.stream === true, tools: body.tools, max_tokens: body.max_tokens };
}

type ResponsesItem = { type?: string; role?: string; content?: unknown; call_id?: string; name?: string; arguments?: string; output?: unknown };

export interface ResponsesRequest {
  model?: string;
  instructions?: string;
  input?: string | ResponsesItem[];
  tools?: unknown[];
  stream?: boolean;
  previous_response_id?: string;
}

export function chatFromResponses(body: ResponsesRequest): Body {
  const messages: ChatMessage[] = [];
  if (body.instructions) messages.push({ role: 'system', content: body.instructions });
  const items: ResponsesItem[] = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : (body.input ?? []);
  for (const item of items) {
    if (item.type === 'function_call') {
      messages.push({ role: 'assistant', content: '', tool_calls: [{ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments ?? '{}' } }] });
    } else if (item.type === 'function_call_output') {
      const output = typeof item.output === 'string' ? item.output : textOfBlocks(item.output);
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: output });
    } else if (item.type === 'message' || (item.type === undefined && item.role)) {
      const role = item.role === 'developer' ? 'system' : (item.role ?? 'user');
      messages.push({ role, content: typedText(item.content) });
    }
  }
  return { model: body.model, messages, stream: body.stream === true, tools: body.tools };
}

/** Ids that differ per conversation state and stay the same when it is sent again. */
export function stableId(prefix: string, body: unknown, index = 0): string {
  return `${prefix}${createHash('sha256').update(JSON.stringify(body)).update(String(index)).digest('hex').slice(0, 24)}`;
}

export function offersTools(tools: unknown): boolean {
  return Array.isArray(tools) && tools.length > 0;
}
