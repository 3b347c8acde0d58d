import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from './model-server.js';

/** Each `event:`/`data:` pair of an SSE body, in order. */
function events(text: string): { event: string | null; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.includes('data: '))
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? null;
      const data = /^data: (.*)$/m.exec(frame)![1]!;
      return { event, data: data === '[DONE]' ? {} : (JSON.parse(data) as Record<string, unknown>) };
    });
}

async function post(server: ModelServer, path: string, body: unknown): Promise<Response> {
  return fetch(`${server.root}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

const WRITE_TOOL = { name: 'Write', description: 'write a file', input_schema: { type: 'object' } };

describe('the test model server speaks Anthropic Messages', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server.close());

  it('answers a string prompt, not streamed', async () => {
    const response = await post(server, '/v1/messages', { model: 'claude-test', max_tokens: 100, messages: [{ role: 'user', content: 'hello there' }] });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-test', stop_reason: 'end_turn', content: [{ type: 'text', text: 'You said: hello there' }] });
  });

  it('streams thinking with its signature, text, and a tool call as input_json_delta, in the provider order', async () => {
    const body = {
      model: 'claude-test',
      max_tokens: 100,
      stream: true,
      tools: [WRITE_TOOL],
      messages: [{ role: 'user', content: [{ type: 'text', text: '<system-reminder>context</system-reminder>' }, { type: 'text', text: 'go [[thinking:plan it]] [[tool:Write {"file_path":"/tmp/a.txt","content":"hi"}]]' }] }],
    };
    const response = await post(server, '/v1/messages?beta=true', body);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const list = events(text);
    expect(list.map((entry) => entry.event)).toEqual([
      'message_start', 'ping',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop',
      'message_delta', 'message_stop',
    ]);
    for (const entry of list) expect(entry.data.type).toBe(entry.event);
    expect(list[2]!.data).toEqual({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } });
    expect((list[5]!.data.delta as { type: string }).type).toBe('signature_delta');
    expect(list[7]!.data).toMatchObject({ index: 1, content_block: { type: 'tool_use', name: 'Write', input: {} } });
    const json = list.slice(8, 10).map((entry) => (entry.data.delta as { partial_json: string }).partial_json).join('');
    expect(JSON.parse(json)).toEqual({ file_path: '/tmp/a.txt', content: 'hi' });
    expect(list[11]!.data).toMatchObject({ delta: { stop_reason: 'tool_use' } });
    expect(server.requests.at(-1)!.sent).toBe(text);
  });

  it('answers the tool result once it comes back, and answers in text when no tools are offered', async () => {
    const prompt = { role: 'user', content: 'write [[tool:Write {"file_path":"/tmp/a.txt","content":"hi"}]]' };
    const first = (await (await post(server, '/v1/messages', { max_tokens: 10, tools: [WRITE_TOOL], messages: [prompt] })).json()) as { content: { id: string }[] };
    const call = first.content[0]!;
    const second = await post(server, '/v1/messages', {
      max_tokens: 10,
      tools: [WRITE_TOOL],
      messages: [prompt, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'File created' }] }],
    });
    expect(await second.json()).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'Tool result: File created' }] });
    const untooled = (await (await post(server, '/v1/messages', { max_tokens: 10, messages: [prompt] })).json()) as { content: { type: string }[] };
    expect(untooled.content.map((block) => block.type)).toEqual(['text']);
  });

  it('fails in the provider shapes: a status, an error event after a 200, a cut stream, a bad request', async () => {
    const failed = await post(server, '/v1/messages', { max_tokens: 10, messages: [{ role: 'user', content: '[[fail]]' }] });
    expect(failed.status).toBe(529);
    expect(await failed.json()).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
    const late = await post(server, '/v1/messages', { max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'a b c d [[fail:event]]' }] });
    expect(late.status).toBe(200);
    expect(events(await late.text()).at(-1)).toMatchObject({ event: 'error', data: { type: 'error', error: { type: 'overloaded_error' } } });
    const cut = await post(server, '/v1/messages', { max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'a b c d [[fail:stream]]' }] });
    await expect(cut.text()).rejects.toThrow();
    const bad = await post(server, '/v1/messages', { messages: [] });
    expect(bad.status).toBe(400);
  });
});

describe('the test model server speaks OpenAI Responses', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server.close());

  it('answers the same output items streamed and not', async () => {
    const body = { model: 'gpt-test', tools: [{ type: 'function', name: 'shell' }], input: [{ type: 'message', role: 'developer', content: 'be brief' }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi [[thinking:hmm]] [[tool:shell {"cmd":"ls"}]] [[tool:shell {"cmd":"pwd"}]]' }] }] };
    const plain = (await (await post(server, '/v1/responses', body)).json()) as { output: Record<string, unknown>[]; status: string };
    expect(plain.status).toBe('completed');
    expect(plain.output.map((item) => item.type)).toEqual(['reasoning', 'function_call', 'function_call']);
    const streamed = events(await (await post(server, '/v1/responses', { ...body, stream: true })).text());
    expect(streamed[0]!.event).toBe('response.created');
    const completed = streamed.at(-1)!;
    expect(completed.event).toBe('response.completed');
    expect((completed.data.response as { output: unknown }).output).toEqual(plain.output);
    const argDeltas = streamed.filter((entry) => entry.event === 'response.function_call_arguments.delta');
    expect(argDeltas.length).toBe(4);
    expect(streamed.map((entry) => entry.data.sequence_number)).toEqual(streamed.map((_, index) => index));
  });

  it('answers the function output with text, and lists models', async () => {
    const body = { input: [{ role: 'user', content: 'x [[tool:shell {}]]' }, { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{}' }, { type: 'function_call_output', call_id: 'c1', output: 'ok' }], tools: [{ type: 'function', name: 'shell' }] };
    const answer = (await (await post(server, '/v1/responses', body)).json()) as { output: { content: { text: string }[] }[] };
    expect(answer.output[0]!.content[0]!.text).toBe('Tool result: ok');
    const models = (await (await fetch(`${server.url}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((model) => model.id)).toContain('test-model');
  });

  it('still answers chat completions as before', async () => {
    const response = await post(server, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hello' }] });
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: 'You said: hello' } }] });
    expect(server.requests.at(-1)!.wire).toBe('chat');
  });
});
