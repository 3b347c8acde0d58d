import { assembleAnthropicJson, assembleAnthropicStream } from './assemble-anthropic.js';
import { assembleChatJson, assembleChatStream } from './assemble-chat.js';
import { assembleResponsesJson, assembleResponsesStream } from './assemble-responses.js';
import { emptyReply, type AssembledReply, type Wire } from './types.js';

/**
 * The reply in the bytes the upstream sent: an SSE stream when its content type says so, else
 * one JSON body. Bytes that are neither (an HTML error page) give an empty reply with the error.
 */
export function assembleReply(wire: Wire, contentType: string | null, body: Buffer): AssembledReply {
  const text = body.toString('utf8');
  if (/^text\/event-stream/i.test(contentType ?? '')) {
    if (wire === 'anthropic') return assembleAnthropicStream(text);
    if (wire === 'responses') return assembleResponsesStream(text);
    return assembleChatStream(text);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const reply = emptyReply();
    reply.error = text.slice(0, 500) || 'empty answer';
    return reply;
  }
  if (wire === 'anthropic') return assembleAnthropicJson(json);
  if (wire === 'responses') return assembleResponsesJson(json);
  return assembleChatJson(json);
}
