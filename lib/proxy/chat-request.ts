import { parseRequest } from './request.js';
import type { Step, Wire } from './types.js';

/**
 * A kept request of any wire as a Chat Completions conversation, for "Replay with… the chat model"
 * (DESIGN §14 Replay): the web chat's model server speaks only Chat Completions, so the agent's
 * system prompt, messages (with their tool calls and results) and tool schemas are carried over
 * in that shape. Thinking blocks are the other model's own and are left out; media are named in
 * the text (a kept request never holds base64, keep-request refuses those).
 */

type Json = Record<string, unknown>;

export type ChatRequestMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatRequestTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments */
  parameters: Record<string, unknown>;
}

const record = (value: unknown): Json | null => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null);
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The tool schemas of a request body, whichever wire's shape they came in. */
export function toolSchemasOf(body: Json): ChatRequestTool[] {
  const tools: ChatRequestTool[] = [];
  for (const item of Array.isArray(body['tools']) ? body['tools'] : []) {
    const tool = record(item);
    if (!tool) continue;
    // Chat Completions nests the function; Responses and Messages keep it flat (input_schema: Messages).
    const fn = record(tool['function']) ?? tool;
    const name = str(fn['name']);
    const parameters = record(fn['parameters']) ?? record(fn['input_schema']);
    // A provider's own tool (web search, a computer) has no schema another model could call.
    if (name === '' || !parameters) continue;
    tools.push({ name, description: str(fn['description']), parameters });
  }
  return tools;
}

function userText(step: Extract<Step, { role: 'user' }>): string {
  const media = step.media.map((item) => `[${item.kind}${item.url ? `: ${item.url}` : ''}]`);
  return [...step.reminders, step.text, ...media].filter((part) => part !== '').join('\n\n');
}

/** The kept request `body` (its system prompt put back) of `wire`, as Chat Completions messages and tools. */
export function chatRequestOf(wire: Wire, body: Json): { messages: ChatRequestMessage[]; tools: ChatRequestTool[] } {
  const parsed = parseRequest(wire, body);
  const messages: ChatRequestMessage[] = parsed.system ? [{ role: 'system', content: parsed.system }] : [];
  for (const step of parsed.steps) {
    if (step.role === 'user') messages.push({ role: 'user', content: userText(step) });
    else if (step.role === 'tool') messages.push({ role: 'tool', tool_call_id: step.callId, content: step.isError ? `Error: ${step.content}` : step.content });
    else if (step.toolCalls.length > 0) {
      messages.push({
        role: 'assistant',
        content: step.text === '' ? null : step.text,
        tool_calls: step.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })),
      });
    } else if (step.text !== '') messages.push({ role: 'assistant', content: step.text });
  }
  return { messages, tools: toolSchemasOf(body) };
}
