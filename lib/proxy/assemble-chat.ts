import { dataJson, parseSse } from './sse.js';
import { emptyReply, type AssembledReply, type ToolCall } from './types.js';

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A Chat Completions answer, not streamed: `choices[0].message`. */
export function assembleChatJson(body: unknown): AssembledReply {
  const reply = emptyReply();
  const completion = (body ?? {}) as Json;
  if (completion.error) {
    reply.error = str((completion.error as Json).message) || 'error';
    return reply;
  }
  reply.id = str(completion.id) || null;
  reply.model = str(completion.model) || null;
  reply.usage = (completion.usage as Json | undefined) ?? null;
  const choice = (Array.isArray(completion.choices) ? completion.choices[0] : null) as Json | null;
  const message = (choice?.message ?? {}) as Json;
  reply.text = str(message.content);
  const reasoning = str(message.reasoning_content) || str(message.reasoning);
  if (reasoning) reply.thinking.push({ text: reasoning });
  for (const call of (Array.isArray(message.tool_calls) ? message.tool_calls : []) as Json[]) {
    const fn = (call.function ?? {}) as Json;
    reply.toolCalls.push({ id: str(call.id), name: str(fn.name), arguments: str(fn.arguments) });
  }
  reply.stopReason = str(choice?.finish_reason) || null;
  reply.finished = true;
  return reply;
}

/**
 * A Chat Completions stream: text deltas; tool calls by `index` (parallel calls interleave),
 * a whole call in one delta, continuation deltas without id or name; `[DONE]` at the end.
 */
export function assembleChatStream(text: string): AssembledReply {
  const reply = emptyReply();
  const calls: ToolCall[] = [];
  let reasoning = '';
  let lastIndex = -1;
  for (const event of parseSse(text)) {
    if (event.data.trim() === '[DONE]') {
      reply.finished = true;
      continue;
    }
    const chunk = dataJson(event);
    if (!chunk) continue;
    if (chunk.error) {
      reply.error = str((chunk.error as Json).message) || 'error';
      continue;
    }
    reply.id ??= str(chunk.id) || null;
    reply.model ??= str(chunk.model) || null;
    if (chunk.usage && typeof chunk.usage === 'object') reply.usage = chunk.usage as Json;
    const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : null) as Json | null;
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as Json;
    reply.text += str(delta.content);
    reasoning += str(delta.reasoning_content) || str(delta.reasoning);
    for (const raw of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []) as Json[]) {
      // Some servers leave out the index: a new id starts a call, no id continues the last one.
      const index = typeof raw.index === 'number' ? raw.index : str(raw.id) ? calls.length : Math.max(lastIndex, 0);
      lastIndex = index;
      const call = (calls[index] ??= { id: '', name: '', arguments: '' });
      const fn = (raw.function ?? {}) as Json;
      if (str(raw.id)) call.id = str(raw.id);
      if (str(fn.name) && call.name === '') call.name = str(fn.name);
      call.arguments += str(fn.arguments);
    }
    if (choice.finish_reason) reply.stopReason = str(choice.finish_reason);
  }
  if (reasoning) reply.thinking.push({ text: reasoning });
  reply.toolCalls = calls.filter((call) => call !== undefined);
  return reply;
}
