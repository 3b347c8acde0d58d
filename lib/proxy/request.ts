import type { Media, ParsedRequest, Step, Thinking, ToolCall, Wire } from './types.js';

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value.filter((item) => item && typeof item === 'object') as Json[]) : []);

/**
 * Context the agents wrap into user messages (Claude Code's `<system-reminder>`, Codex's
 * `<environment_context>` and `<user_instructions>`): recorded beside the message, never part of
 * what the person said, nor of its identity.
 */
export const REMINDER = /<(system-reminder|environment_context|user_instructions)>[\s\S]*?<\/\1>/g;

/** A string content is one text block (DESIGN §12 normalisation). */
function blocks(content: unknown): Json[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : list(content);
}

function splitReminders(texts: string[]): { text: string; reminders: string[] } {
  const reminders: string[] = [];
  const kept = texts
    .map((text) => text.replace(REMINDER, (match) => (reminders.push(match), '')).trim())
    .filter((text) => text !== '');
  return { text: kept.join('\n\n'), reminders };
}

function mediaOf(block: Json): Media | null {
  const source = (block.source ?? {}) as Json;
  const kind = block.type === 'image' || block.type === 'input_image' || block.type === 'image_url' ? 'image' : block.type === 'document' ? 'document' : block.type === 'input_audio' ? 'audio' : block.type === 'input_file' ? 'file' : null;
  if (!kind) return null;
  if (source.type === 'base64') return { kind, mime: str(source.media_type) || 'application/octet-stream', data: str(source.data) };
  if (source.type === 'url') return { kind, mime: 'application/octet-stream', url: str(source.url) };
  const url = str(block.image_url) || str((block.image_url as Json | undefined)?.url) || str(block.file_data);
  const dataUrl = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (dataUrl) return { kind, mime: dataUrl[1]!, data: dataUrl[2]! };
  const audio = (block.input_audio ?? {}) as Json;
  if (str(audio.data)) return { kind, mime: `audio/${str(audio.format) || 'wav'}`, data: str(audio.data) };
  return url ? { kind, mime: 'application/octet-stream', url } : null;
}

function userStep(content: unknown): Step {
  const parts = blocks(content);
  const texts = parts.filter((part) => ['text', 'input_text'].includes(str(part.type))).map((part) => str(part.text));
  const media = parts.map(mediaOf).filter((item): item is Media => item !== null);
  return { role: 'user', ...splitReminders(texts), media };
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === undefined || content === null) return '';
  const parts = list(content);
  if (parts.length > 0 && parts.every((part) => typeof part.text === 'string')) return parts.map((part) => str(part.text)).join('\n');
  return JSON.stringify(content);
}

// ---------------------------------------------------------------- Anthropic Messages

function anthropicSteps(body: Json): { system: string[]; steps: Step[] } {
  const system: string[] = [];
  if (typeof body.system === 'string') system.push(body.system);
  else for (const block of list(body.system)) system.push(str(block.text));
  const steps: Step[] = [];
  for (const message of list(body.messages)) {
    const parts = blocks(message.content);
    if (message.role === 'assistant') {
      const thinking: Thinking[] = [];
      const toolCalls: ToolCall[] = [];
      let text = '';
      for (const part of parts) {
        if (part.type === 'text') text += str(part.text);
        else if (part.type === 'thinking') thinking.push({ text: str(part.thinking), ...(str(part.signature) ? { signature: str(part.signature) } : {}) });
        else if (part.type === 'redacted_thinking') thinking.push({ text: '', signature: str(part.data) });
        else if (part.type === 'tool_use' || part.type === 'server_tool_use') toolCalls.push({ id: str(part.id), name: str(part.name), arguments: JSON.stringify(part.input ?? {}) });
      }
      steps.push({ role: 'assistant', text, thinking, toolCalls });
    } else if (message.role === 'system') {
      // Claude Code 2.1 sends a trailing role-system message: instructions, not the conversation.
      system.push(parts.map((part) => str(part.text)).join('\n'));
    } else {
      const results = parts.filter((part) => part.type === 'tool_result');
      for (const result of results) steps.push({ role: 'tool', callId: str(result.tool_use_id), content: resultText(result.content), isError: result.is_error === true });
      const rest = parts.filter((part) => part.type !== 'tool_result');
      // Text beside tool results is a new message only when it is more than reminders.
      const step = userStep(rest);
      if (results.length === 0 || (step.role === 'user' && (step.text !== '' || step.media.length > 0))) steps.push(step);
    }
  }
  return { system, steps };
}

// ---------------------------------------------------------------- OpenAI Chat Completions

function chatSteps(body: Json): { system: string[]; steps: Step[] } {
  const system: string[] = [];
  const steps: Step[] = [];
  for (const message of list(body.messages)) {
    const role = str(message.role);
    if (role === 'system' || role === 'developer') system.push(blocks(message.content).map((part) => str(part.text)).join('\n'));
    else if (role === 'assistant') {
      const text = typeof message.content === 'string' ? message.content : blocks(message.content).map((part) => str(part.text)).join('');
      const toolCalls = list(message.tool_calls).map((call) => {
        const fn = (call.function ?? {}) as Json;
        return { id: str(call.id), name: str(fn.name), arguments: str(fn.arguments) };
      });
      const reasoning = str(message.reasoning_content) || str(message.reasoning);
      steps.push({ role: 'assistant', text, thinking: reasoning ? [{ text: reasoning }] : [], toolCalls });
    } else if (role === 'tool' || role === 'function') {
      steps.push({ role: 'tool', callId: str(message.tool_call_id) || str(message.name), content: resultText(message.content), isError: false });
    } else {
      steps.push(userStep(message.content));
    }
  }
  return { system, steps };
}

// ---------------------------------------------------------------- OpenAI Responses

function responsesSteps(body: Json): { system: string[]; steps: Step[] } {
  const system: string[] = body.instructions ? [str(body.instructions)] : [];
  const steps: Step[] = [];
  const items: Json[] = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : list(body.input);
  // Consecutive model items (reasoning, message, calls) are one assistant message.
  const assistant = (): Extract<Step, { role: 'assistant' }> => {
    const last = steps.at(-1);
    if (last?.role === 'assistant') return last;
    const step: Step = { role: 'assistant', text: '', thinking: [], toolCalls: [] };
    steps.push(step);
    return step;
  };
  for (const item of items) {
    const type = str(item.type) || (item.role ? 'message' : '');
    if (type === 'message') {
      const role = str(item.role);
      if (role === 'system' || role === 'developer') system.push(blocks(item.content).map((part) => str(part.text)).join('\n'));
      else if (role === 'assistant') assistant().text += blocks(item.content).map((part) => str(part.text) || str(part.refusal)).join('');
      else steps.push(userStep(item.content));
    } else if (type === 'reasoning') {
      const summary = list(item.summary).map((part) => str(part.text)).join('\n');
      assistant().thinking.push({ text: summary, ...(str(item.encrypted_content) ? { signature: str(item.encrypted_content) } : {}) });
    } else if (type === 'function_call') {
      assistant().toolCalls.push({ id: str(item.call_id) || str(item.id), name: str(item.name), arguments: str(item.arguments) });
    } else if (type === 'custom_tool_call') {
      assistant().toolCalls.push({ id: str(item.call_id) || str(item.id), name: str(item.name), arguments: JSON.stringify({ input: str(item.input) }) });
    } else if (type === 'local_shell_call') {
      assistant().toolCalls.push({ id: str(item.call_id) || str(item.id), name: 'local_shell', arguments: JSON.stringify(item.action ?? {}) });
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output' || type === 'local_shell_call_output') {
      steps.push({ role: 'tool', callId: str(item.call_id), content: resultText(item.output), isError: false });
    }
  }
  return { system, steps };
}

/** A user message that is only context (Codex sends its environment as one) goes with the next user message. */
function foldContextOnlyMessages(steps: Step[]): Step[] {
  const out: Step[] = [];
  let pending: string[] = [];
  for (const [index, step] of steps.entries()) {
    const next = steps[index + 1];
    if (step.role === 'user' && step.text === '' && step.media.length === 0 && step.reminders.length > 0 && next?.role === 'user') {
      pending.push(...step.reminders);
      continue;
    }
    if (step.role === 'user' && pending.length > 0) {
      out.push({ ...step, reminders: [...pending, ...step.reminders] });
      pending = [];
    } else out.push(step);
  }
  return out;
}

/** A request body (already JSON) read into steps. Anything unexpected is skipped, never thrown. */
export function parseRequest(wire: Wire, body: unknown): ParsedRequest {
  const json = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Json;
  const { system, steps: raw } = wire === 'anthropic' ? anthropicSteps(json) : wire === 'responses' ? responsesSteps(json) : chatSteps(json);
  const steps = foldContextOnlyMessages(raw);
  const tools = list(json.tools).map((tool) => str(tool.name) || str((tool.function as Json | undefined)?.name) || str(tool.type)).filter(Boolean);
  const joined = system.filter((text) => text !== '').join('\n\n');
  return {
    wire,
    model: str(json.model) || null,
    stream: json.stream === true,
    system: joined === '' ? null : joined,
    steps,
    tools,
    previousResponseId: str(json.previous_response_id) || null,
    metadataUserId: str((json.metadata as Json | undefined)?.user_id) || null,
  };
}
