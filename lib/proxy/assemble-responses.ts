import { dataJson, parseSse } from './sse.js';
import { emptyReply, type AssembledReply } from './types.js';

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

function textOfContent(content: unknown): string {
  return (Array.isArray(content) ? (content as Json[]) : [])
    .map((part) => (part.type === 'output_text' || part.type === 'text' ? str(part.text) : part.type === 'refusal' ? str(part.refusal) : ''))
    .join('');
}

/** Output items (message, reasoning, function_call, custom tool calls) into a reply. */
function fromItems(reply: AssembledReply, items: Json[]): void {
  for (const item of items) {
    if (!item) continue;
    if (item.type === 'message') reply.text += textOfContent(item.content);
    else if (item.type === 'reasoning') {
      const summary = (Array.isArray(item.summary) ? (item.summary as Json[]) : []).map((part) => str(part.text)).join('\n');
      const content = (Array.isArray(item.content) ? (item.content as Json[]) : []).map((part) => str(part.text)).join('\n');
      reply.thinking.push({ text: summary || content, ...(str(item.encrypted_content) ? { signature: str(item.encrypted_content) } : {}) });
    } else if (item.type === 'function_call') {
      reply.toolCalls.push({ id: str(item.call_id) || str(item.id), name: str(item.name), arguments: str(item.arguments) });
    } else if (item.type === 'custom_tool_call') {
      reply.toolCalls.push({ id: str(item.call_id) || str(item.id), name: str(item.name), arguments: JSON.stringify({ input: str(item.input) }) });
    } else if (item.type === 'local_shell_call') {
      reply.toolCalls.push({ id: str(item.call_id) || str(item.id), name: 'local_shell', arguments: JSON.stringify(item.action ?? {}) });
    }
  }
}

function fromResponse(reply: AssembledReply, response: Json): void {
  reply.id = str(response.id) || reply.id;
  reply.model = str(response.model) || reply.model;
  if (response.usage && typeof response.usage === 'object') reply.usage = response.usage as Json;
  if (response.status) reply.stopReason = str(response.status);
}

/** A Responses answer, not streamed: the response object. */
export function assembleResponsesJson(body: unknown): AssembledReply {
  const reply = emptyReply();
  const response = (body ?? {}) as Json;
  if (response.error && !response.output) {
    reply.error = str((response.error as Json).message) || 'error';
    return reply;
  }
  fromResponse(reply, response);
  fromItems(reply, (Array.isArray(response.output) ? response.output : []) as Json[]);
  if (response.status === 'failed') reply.error = str(((response.error ?? {}) as Json).message) || 'failed';
  reply.finished = true;
  return reply;
}

/**
 * A Responses stream. `response.completed` carries every output item and wins; a stream cut
 * before it is rebuilt from the items and deltas that came (by output_index).
 */
export function assembleResponsesStream(text: string): AssembledReply {
  const reply = emptyReply();
  const items: Json[] = [];
  let completed: Json | null = null;
  for (const event of parseSse(text)) {
    const data = dataJson(event);
    if (!data) continue;
    const type = str(data.type) || event.event || '';
    const index = typeof data.output_index === 'number' ? data.output_index : -1;
    if (type === 'response.created' || type === 'response.in_progress') {
      fromResponse(reply, (data.response ?? {}) as Json);
    } else if ((type === 'response.output_item.added' || type === 'response.output_item.done') && index >= 0) {
      items[index] = { ...((data.item ?? {}) as Json) };
    } else if (type === 'response.output_text.delta' && index >= 0) {
      const item = (items[index] ??= { type: 'message', content: [] });
      const content = (item.content = Array.isArray(item.content) ? (item.content as Json[]) : []);
      const part = ((content as Json[])[Number(data.content_index ?? 0)] ??= { type: 'output_text', text: '' });
      part.text = str(part.text) + str(data.delta);
    } else if (type === 'response.function_call_arguments.delta' && index >= 0) {
      const item = (items[index] ??= { type: 'function_call', arguments: '' });
      item.arguments = str(item.arguments) + str(data.delta);
    } else if (type === 'response.reasoning_summary_text.delta' && index >= 0) {
      const item = (items[index] ??= { type: 'reasoning', summary: [] });
      const summary = (item.summary = Array.isArray(item.summary) ? (item.summary as Json[]) : []);
      const part = ((summary as Json[])[Number(data.summary_index ?? 0)] ??= { type: 'summary_text', text: '' });
      part.text = str(part.text) + str(data.delta);
    } else if (type === 'response.completed' || type === 'response.incomplete') {
      completed = (data.response ?? {}) as Json;
      reply.finished = true;
    } else if (type === 'response.failed') {
      const response = (data.response ?? {}) as Json;
      fromResponse(reply, response);
      reply.error = str(((response.error ?? {}) as Json).message) || 'the response failed';
    } else if (type === 'error') {
      reply.error = str(data.message) || str(((data.error ?? {}) as Json).message) || 'error';
    }
  }
  if (completed) {
    fromResponse(reply, completed);
    const output = Array.isArray(completed.output) && completed.output.length > 0 ? (completed.output as Json[]) : items;
    fromItems(reply, output);
  } else {
    fromItems(reply, items);
  }
  return reply;
}
