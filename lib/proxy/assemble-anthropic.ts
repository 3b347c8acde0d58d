import { dataJson, parseSse } from './sse.js';
import { emptyReply, type AssembledReply } from './types.js';

type Json = Record<string, unknown>;
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

interface OpenBlock {
  type: string;
  text: string;
  signature: string;
  id: string;
  name: string;
  json: string;
  input: unknown;
}

function fromBlocks(reply: AssembledReply, blocks: (OpenBlock | undefined)[]): void {
  for (const block of blocks) {
    if (!block) continue;
    if (block.type === 'text') reply.text += block.text;
    else if (block.type === 'thinking') reply.thinking.push({ text: block.text, ...(block.signature ? { signature: block.signature } : {}) });
    else if (block.type === 'redacted_thinking') reply.thinking.push({ text: '', signature: block.signature });
    else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      // The input is an object; streamed, it arrives as JSON pieces (a block cut off keeps what came).
      reply.toolCalls.push({ id: block.id, name: block.name, arguments: block.json !== '' ? compactJson(block.json) : JSON.stringify(block.input ?? {}) });
    }
  }
}

function compactJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

function openBlock(raw: Json): OpenBlock {
  return {
    type: str(raw.type),
    text: str(raw.text) || str(raw.thinking),
    signature: str(raw.signature) || str(raw.data),
    id: str(raw.id),
    name: str(raw.name),
    json: '',
    input: raw.input,
  };
}

/** A Messages answer, not streamed: the message object (or an error object). */
export function assembleAnthropicJson(body: unknown): AssembledReply {
  const reply = emptyReply();
  const message = (body ?? {}) as Json;
  if (message.type === 'error') {
    reply.error = str((message.error as Json | undefined)?.message) || 'error';
    return reply;
  }
  reply.id = str(message.id) || null;
  reply.model = str(message.model) || null;
  reply.stopReason = str(message.stop_reason) || null;
  reply.usage = (message.usage as Json | undefined) ?? null;
  const blocks = Array.isArray(message.content) ? (message.content as Json[]).map((raw) => {
    const block = openBlock(raw);
    if (raw.input !== undefined) block.json = JSON.stringify(raw.input);
    return block;
  }) : [];
  fromBlocks(reply, blocks);
  reply.finished = true;
  return reply;
}

/** A Messages stream: message_start, content blocks by index with their deltas, message_delta, message_stop. */
export function assembleAnthropicStream(text: string): AssembledReply {
  const reply = emptyReply();
  const blocks: (OpenBlock | undefined)[] = [];
  for (const event of parseSse(text)) {
    const data = dataJson(event);
    if (!data) continue;
    const type = str(data.type) || event.event;
    const index = typeof data.index === 'number' ? data.index : -1;
    if (type === 'message_start') {
      const message = (data.message ?? {}) as Json;
      reply.id = str(message.id) || null;
      reply.model = str(message.model) || null;
      // Its output_tokens is a placeholder (1): the count is message_delta's, unknown until it comes.
      const { output_tokens: _placeholder, ...usage } = (message.usage as Json | undefined) ?? {};
      reply.usage = message.usage ? usage : null;
    } else if (type === 'content_block_start' && index >= 0) {
      blocks[index] = openBlock((data.content_block ?? {}) as Json);
    } else if (type === 'content_block_delta' && index >= 0) {
      const block = (blocks[index] ??= openBlock({ type: 'text' }));
      const delta = (data.delta ?? {}) as Json;
      if (delta.type === 'text_delta') block.text += str(delta.text);
      else if (delta.type === 'thinking_delta') block.text += str(delta.thinking);
      else if (delta.type === 'signature_delta') block.signature += str(delta.signature);
      else if (delta.type === 'input_json_delta') block.json += str(delta.partial_json);
    } else if (type === 'message_delta') {
      const delta = (data.delta ?? {}) as Json;
      if (delta.stop_reason) reply.stopReason = str(delta.stop_reason);
      if (data.usage && typeof data.usage === 'object') reply.usage = { ...(reply.usage ?? {}), ...(data.usage as Json) };
    } else if (type === 'message_stop') {
      reply.finished = true;
    } else if (type === 'error') {
      reply.error = str(((data.error ?? {}) as Json).message) || 'error';
    }
  }
  fromBlocks(reply, blocks);
  return reply;
}
