import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleReply } from './assemble.js';
import type { Wire } from './types.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name));
const SSE = 'text/event-stream; charset=utf-8';

describe('golden: each recorded stream reassembles to its non-streamed answer', () => {
  const cases: [Wire, string][] = [
    ['anthropic', 'anthropic-thinking-tools'],
    ['chat', 'chat-parallel-tools'],
    ['chat', 'chat-whole-call'],
    ['responses', 'responses-items'],
  ];
  for (const [wire, name] of cases) {
    it(`${wire}: ${name}`, () => {
      const streamed = assembleReply(wire, SSE, fixture(`${name}.sse`));
      const plain = assembleReply(wire, 'application/json', fixture(`${name}.json`));
      expect(streamed).toEqual(plain);
      expect(streamed.finished).toBe(true);
      expect(streamed.error).toBeNull();
    });
  }

  it('anthropic: thinking keeps its signature; parallel tool calls keep their order and whole input', () => {
    const reply = assembleReply('anthropic', SSE, fixture('anthropic-thinking-tools.sse'));
    expect(reply.thinking).toEqual([{ text: 'The user wants two files. I can write both at once.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds' }]);
    expect(reply.text).toBe("I'll write both files — ünïcode ✓.");
    expect(reply.toolCalls.map((call) => [call.id, JSON.parse(call.arguments)])).toEqual([
      ['toolu_01T1x1fJ34qAmk2tNTrN7Up6', { file_path: '/tmp/a.txt', content: 'A' }],
      ['toolu_01NRLabsLyVHZPKxbKvkfSMn', { file_path: '/tmp/b.txt', content: 'B' }],
    ]);
    expect(reply.usage).toMatchObject({ input_tokens: 472, output_tokens: 89 });
  });

  it('chat: interleaved calls by index, a whole call in one delta, continuation deltas without id or index', () => {
    const parallel = assembleReply('chat', SSE, fixture('chat-parallel-tools.sse'));
    expect(parallel.toolCalls).toEqual([
      { id: 'call_Aa1', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { id: 'call_Bb2', name: 'get_time', arguments: '{"tz": "CET"}' },
    ]);
    const whole = assembleReply('chat', SSE, fixture('chat-whole-call.sse'));
    expect(whole.toolCalls.map((call) => call.arguments)).toEqual(['{"path":"."}', '{"path":"a.md"}']);
    expect(whole.thinking).toEqual([{ text: 'Need the file list.' }]);
  });

  it('responses: a stream cut before response.completed is rebuilt from its items and deltas', () => {
    const full = fixture('responses-items.sse').toString('utf8');
    const cut = full.slice(0, full.indexOf('event: response.function_call_arguments.done'));
    const reply = assembleReply('responses', SSE, Buffer.from(cut));
    expect(reply.finished).toBe(false);
    expect(reply.text).toBe('Let me look at the files.');
    expect(reply.thinking).toEqual([{ text: 'Check the directory first.' }]);
    expect(reply.toolCalls).toEqual([{ id: 'call_X1', name: 'shell', arguments: '{"command":["ls","-la"]}' }]);
  });

  it('an error event after a 200 keeps what came before it, marked with the error', () => {
    const reply = assembleReply('anthropic', SSE, fixture('anthropic-error-event.sse'));
    expect(reply).toMatchObject({ text: 'Half an ans', error: 'Overloaded', finished: false });
  });

  it('an upstream error body, a stream cut mid-line and bytes that are not JSON', () => {
    expect(assembleReply('anthropic', 'application/json', Buffer.from('{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}')).error).toBe('invalid x-api-key');
    expect(assembleReply('chat', 'application/json', Buffer.from('{"error":{"message":"Rate limit"}}')).error).toBe('Rate limit');
    const chat = fixture('chat-whole-call.sse').toString('utf8');
    const cut = assembleReply('chat', SSE, Buffer.from(chat.slice(0, chat.indexOf('now.') + 2)));
    expect(cut).toMatchObject({ text: 'Listing ', finished: false });
    expect(assembleReply('responses', 'text/html', Buffer.from('<html>Bad gateway</html>')).error).toContain('Bad gateway');
  });
});
