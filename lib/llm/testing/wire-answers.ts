import { createHash } from 'node:crypto';
import { replyFor, scriptOf, thinkingOf, type Body, type ScriptedReply } from './script.js';
import { chatFromAnthropic, chatFromResponses, offersTools, stableId, type AnthropicRequest, type ResponsesRequest } from './wire-requests.js';

/**
 * The Messages and Responses answers of the test model, in the providers' own shapes (field
 * names, event order, ids), streamed or not. `Out` is the model server's response plumbing.
 */
export interface Out {
  json(status: number, body: unknown): void;
  /** status 200, text/event-stream */
  startStream(): void;
  /** one SSE event, written after the script's delay; false once the client is gone */
  event(name: string | null, data: unknown): Promise<boolean>;
  /** raw bytes (`data: [DONE]`), then the end */
  end(raw?: string): void;
  /** break the connection off, as a crashed server would */
  destroy(): void;
}

const pieces = (text: string) => (text === '' ? [] : text.split(/(?<= )/));
const halves = (text: string) => {
  const half = Math.ceil(text.length / 2);
  return [text.slice(0, half), text.slice(half)].filter((part) => part !== '');
};
/** The fakes' token count of a text: about four characters a token, as the real models count English. */
export const tokens = (text: string) => Math.max(1, Math.ceil(text.length / 4));
const signatureOf = (thinking: string) => createHash('sha256').update(`sig:${thinking}`).digest('base64');

function scripted(chat: Body, tools: unknown): { reply: ScriptedReply; thinking: string | null } {
  return { reply: replyFor(chat, { offerTools: offersTools(tools) }), thinking: thinkingOf(chat) };
}

// ---------------------------------------------------------------- Anthropic Messages

const anthropicError = (type: string, message: string) => ({ type: 'error', error: { type, message } });

export async function answerAnthropic(body: AnthropicRequest, out: Out): Promise<void> {
  if (!Array.isArray(body.messages) || typeof body.max_tokens !== 'number') {
    out.json(400, anthropicError('invalid_request_error', 'messages and max_tokens are required'));
    return;
  }
  const chat = chatFromAnthropic(body);
  const script = scriptOf(chat);
  if (script.fail === 'status') {
    out.json(529, anthropicError('overloaded_error', 'Overloaded (scripted failure of the test model)'));
    return;
  }
  const { reply, thinking } = scripted(chat, body.tools);
  const id = stableId('msg_test_', body.messages);
  const model = body.model ?? 'test-model';
  const calls = reply.toolCalls.map((call, index) => ({ ...call, id: stableId('toolu_test_', body.messages, index) }));
  const content: Record<string, unknown>[] = [];
  if (thinking !== null) content.push({ type: 'thinking', thinking, signature: signatureOf(thinking) });
  if (reply.text !== '') content.push({ type: 'text', text: reply.text });
  for (const call of calls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: JSON.parse(call.arguments) as unknown });
  const stopReason = calls.length > 0 ? 'tool_use' : 'end_turn';
  const inputTokens = tokens(JSON.stringify(body.messages));
  const outputTokens = tokens(JSON.stringify(content));
  // As if the system prompt were cached: a read of the cache and no write (a usage page has a hit rate to show).
  const cache = { cache_creation_input_tokens: 0, cache_read_input_tokens: tokens(JSON.stringify(body.system ?? '')) };
  if (!body.stream) {
    out.json(200, { id, type: 'message', role: 'assistant', model, content, stop_reason: stopReason, stop_sequence: null, usage: { input_tokens: inputTokens, ...cache, output_tokens: outputTokens } });
    return;
  }
  out.startStream();
  const send = (name: string, data: Record<string, unknown>) => out.event(name, { type: name, ...data });
  if (!(await send('message_start', { message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, ...cache, output_tokens: 1 } } }))) return;
  await send('ping', {});
  let sentPieces = 0;
  for (const [index, block] of content.entries()) {
    if (block.type === 'thinking') {
      await send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const piece of pieces(String(block.thinking))) await send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
      await send('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'text') {
      await send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(String(block.text))) {
        if (!(await send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }))) return;
        if (script.fail === 'stream' && ++sentPieces >= 2) return out.destroy();
        if (script.fail === 'event' && ++sentPieces >= 2) {
          await out.event('error', anthropicError('overloaded_error', 'Overloaded (scripted failure of the test model)'));
          return out.end();
        }
      }
    } else {
      await send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const part of halves(JSON.stringify(block.input))) await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: part } });
    }
    await send('content_block_stop', { index });
  }
  await send('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  await send('message_stop', {});
  if (script.lingerMs > 0) await new Promise((resolve) => setTimeout(resolve, script.lingerMs));
  out.end();
}

// ---------------------------------------------------------------- OpenAI Responses

export async function answerResponses(body: ResponsesRequest, out: Out): Promise<void> {
  if (body.input === undefined) {
    out.json(400, { error: { message: "Missing required parameter: 'input'.", type: 'invalid_request_error', param: 'input', code: 'missing_required_parameter' } });
    return;
  }
  const chat = chatFromResponses(body);
  const script = scriptOf(chat);
  if (script.fail === 'status') {
    out.json(500, { error: { message: 'scripted failure of the test model', type: 'server_error', param: null, code: null } });
    return;
  }
  const { reply, thinking } = scripted(chat, body.tools);
  const id = stableId('resp_test_', body.input);
  const model = body.model ?? 'test-model';
  const createdAt = Math.floor(Date.now() / 1000);
  const items: Record<string, unknown>[] = [];
  if (thinking !== null) items.push({ id: stableId('rs_test_', body.input), type: 'reasoning', summary: [{ type: 'summary_text', text: thinking }] });
  if (reply.text !== '') {
    items.push({ id: stableId('msg_test_', body.input), type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [] }] });
  }
  reply.toolCalls.forEach((call, index) => {
    items.push({ id: stableId('fc_test_', body.input, index), type: 'function_call', status: 'completed', call_id: stableId('call_test_', body.input, index), name: call.name, arguments: call.arguments });
  });
  const usage = { input_tokens: tokens(JSON.stringify(body.input)), input_tokens_details: { cached_tokens: 0 }, output_tokens: tokens(JSON.stringify(items)), output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 };
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  const response = (status: string, output: unknown[], withUsage: boolean) => ({
    id, object: 'response', created_at: createdAt, status, model, output, previous_response_id: body.previous_response_id ?? null, usage: withUsage ? usage : null,
  });
  if (!body.stream) {
    out.json(200, response('completed', items, true));
    return;
  }
  out.startStream();
  let sequence = 0;
  const send = (name: string, data: Record<string, unknown>) => out.event(name, { type: name, sequence_number: sequence++, ...data });
  if (!(await send('response.created', { response: response('in_progress', [], false) }))) return;
  await send('response.in_progress', { response: response('in_progress', [], false) });
  let sentPieces = 0;
  for (const [outputIndex, item] of items.entries()) {
    const itemId = String(item.id);
    if (item.type === 'reasoning') {
      const text = (item.summary as { text: string }[])[0]!.text;
      await send('response.output_item.added', { output_index: outputIndex, item: { id: itemId, type: 'reasoning', summary: [] } });
      await send('response.reasoning_summary_part.added', { item_id: itemId, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text: '' } });
      for (const piece of pieces(text)) await send('response.reasoning_summary_text.delta', { item_id: itemId, output_index: outputIndex, summary_index: 0, delta: piece });
      await send('response.reasoning_summary_text.done', { item_id: itemId, output_index: outputIndex, summary_index: 0, text });
      await send('response.reasoning_summary_part.done', { item_id: itemId, output_index: outputIndex, summary_index: 0, part: { type: 'summary_text', text } });
    } else if (item.type === 'message') {
      const text = (item.content as { text: string }[])[0]!.text;
      await send('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', content: [] } });
      await send('response.content_part.added', { item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const piece of pieces(text)) {
        if (!(await send('response.output_text.delta', { item_id: itemId, output_index: outputIndex, content_index: 0, delta: piece }))) return;
        if (script.fail === 'stream' && ++sentPieces >= 2) return out.destroy();
        if (script.fail === 'event' && ++sentPieces >= 2) {
          await send('response.failed', { response: { ...response('failed', [], false), error: { code: 'server_error', message: 'scripted failure of the test model' } } });
          return out.end();
        }
      }
      await send('response.output_text.done', { item_id: itemId, output_index: outputIndex, content_index: 0, text });
      await send('response.content_part.done', { item_id: itemId, output_index: outputIndex, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
    } else {
      const args = String(item.arguments);
      await send('response.output_item.added', { output_index: outputIndex, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const part of halves(args)) await send('response.function_call_arguments.delta', { item_id: itemId, output_index: outputIndex, delta: part });
      await send('response.function_call_arguments.done', { item_id: itemId, output_index: outputIndex, arguments: args });
    }
    await send('response.output_item.done', { output_index: outputIndex, item });
  }
  await send('response.completed', { response: response('completed', items, true) });
  if (script.lingerMs > 0) await new Promise((resolve) => setTimeout(resolve, script.lingerMs));
  out.end();
}
