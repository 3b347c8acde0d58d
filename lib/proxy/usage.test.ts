import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleReply } from './assemble.js';
import { tokenCounts } from './usage.js';
import type { Wire } from './types.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name));
const SSE = 'text/event-stream';
const countsOf = (wire: Wire, name: string, contentType = SSE) => tokenCounts(wire, assembleReply(wire, contentType, fixture(name)).usage);

describe('golden: the exact token counts of a recorded answer (DESIGN §15)', () => {
  it('Messages stream: message_start usage, then the final message_delta usage wins (never the sum of the two)', () => {
    // message_start says output 1, message_delta 437: the count is 437, not 438.
    expect(countsOf('anthropic', 'anthropic-usage-cache.sse')).toEqual({ input: 12, output: 437, cacheRead: 30000, cacheWrite: 2048, reasoning: null });
    expect(countsOf('anthropic', 'anthropic-thinking-tools.sse')).toEqual({ input: 472, output: 89, cacheRead: 0, cacheWrite: 0, reasoning: null });
  });

  it('Messages, not streamed: the same counts as its stream', () => {
    expect(countsOf('anthropic', 'anthropic-thinking-tools.json', 'application/json')).toEqual(countsOf('anthropic', 'anthropic-thinking-tools.sse'));
  });

  it('Responses stream: the usage of response.completed (created and in_progress carry none); cached tokens taken out of input', () => {
    expect(countsOf('responses', 'responses-usage-cache.sse')).toEqual({ input: 904, output: 300, cacheRead: 4096, cacheWrite: null, reasoning: 128 });
    expect(countsOf('responses', 'responses-items.sse')).toEqual({ input: 300, output: 50, cacheRead: 0, cacheWrite: null, reasoning: 12 });
  });

  it('Chat Completions stream with stream_options.include_usage: the last chunk, after finish_reason', () => {
    expect(countsOf('chat', 'chat-usage-include.sse')).toEqual({ input: 176, output: 80, cacheRead: 1024, cacheWrite: null, reasoning: 16 });
    // No details on the wire: the cache is unknown, and input is the whole prompt.
    expect(countsOf('chat', 'chat-parallel-tools.sse')).toEqual({ input: 80, output: 40, cacheRead: null, cacheWrite: null, reasoning: null });
  });

  it('an answer without usage (a stream cut before it, a chat stream without include_usage) is unknown, not 0', () => {
    const full = fixture('anthropic-usage-cache.sse').toString('utf8');
    const cut = assembleReply('anthropic', SSE, Buffer.from(full.slice(0, full.indexOf('event: message_delta'))));
    // Only message_start came: its output of 1 is a placeholder, so output is unknown; input is known.
    expect(tokenCounts('anthropic', cut.usage)).toMatchObject({ input: 12, output: null, cacheRead: 30000 });
    const chat = fixture('chat-whole-call.sse').toString('utf8');
    expect(tokenCounts('chat', assembleReply('chat', SSE, Buffer.from(chat)).usage)).toBeNull();
    expect(tokenCounts('responses', { input_tokens: 'x', output_tokens: -1 })).toEqual({ input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null });
  });
});
