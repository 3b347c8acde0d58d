import { describe, expect, it } from 'vitest';
import { fingerprints } from './fingerprint.js';
import { parseRequest } from './request.js';

describe('parseRequest: a request read into steps, whatever its wire format', () => {
  it('anthropic: system prompt apart, reminders apart, tool results as their own steps, a trailing system message not in the conversation', () => {
    const parsed = parseRequest('anthropic', {
      model: 'claude-x',
      stream: true,
      system: [{ type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } }],
      metadata: { user_id: 'user_ab_account__session_2f0e3c1a-1111-2222-3333-444455556666' },
      tools: [{ name: 'Write', input_schema: {} }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: '<system-reminder>CLAUDE.md says hi</system-reminder>' }, { type: 'text', text: 'write a.txt', cache_control: { type: 'ephemeral' } }] },
        { role: 'assistant', content: [{ type: 'thinking', thinking: 'ok', signature: 'sig' }, { type: 'tool_use', id: 't1', name: 'Write', input: { file_path: 'a.txt' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'File created' }] }, { type: 'text', text: '<system-reminder>todo list empty</system-reminder>' }] },
        { role: 'system', content: 'stay concise' },
      ],
    });
    expect(parsed).toMatchObject({ model: 'claude-x', stream: true, system: 'You are Claude Code.\n\nstay concise', tools: ['Write'] });
    expect(parsed.metadataUserId).toContain('session_2f0e3c1a');
    expect(parsed.steps).toEqual([
      { role: 'user', text: 'write a.txt', media: [], reminders: ['<system-reminder>CLAUDE.md says hi</system-reminder>'] },
      { role: 'assistant', text: '', thinking: [{ text: 'ok', signature: 'sig' }], toolCalls: [{ id: 't1', name: 'Write', arguments: '{"file_path":"a.txt"}' }] },
      { role: 'tool', callId: 't1', content: 'File created', isError: false },
    ]);
  });

  it('chat: system and developer messages apart; assistant tool calls; tool messages; image data URLs as media', () => {
    const parsed = parseRequest('chat', {
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'a b' },
      ],
    });
    expect(parsed.system).toBe('sys');
    expect(parsed.steps).toEqual([
      { role: 'user', text: 'look', media: [{ kind: 'image', mime: 'image/png', data: 'iVBORw0KGgo=' }], reminders: [] },
      { role: 'assistant', text: '', thinking: [], toolCalls: [{ id: 'c1', name: 'ls', arguments: '{}' }] },
      { role: 'tool', callId: 'c1', content: 'a b', isError: false },
    ]);
  });

  it('responses: instructions and developer items apart; consecutive model items are one assistant step; a string input is one user message', () => {
    const parsed = parseRequest('responses', {
      instructions: 'codex rules',
      previous_response_id: 'resp_1',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'perms' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files' }] },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'enc' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Listing.' }] },
        { type: 'function_call', call_id: 'c1', name: 'shell', arguments: '{"command":["ls"]}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
      ],
    });
    expect(parsed.system).toBe('codex rules\n\nperms');
    expect(parsed.previousResponseId).toBe('resp_1');
    expect(parsed.steps.map((step) => step.role)).toEqual(['user', 'assistant', 'tool']);
    expect(parsed.steps[1]).toEqual({ role: 'assistant', text: 'Listing.', thinking: [{ text: 'think', signature: 'enc' }], toolCalls: [{ id: 'c1', name: 'shell', arguments: '{"command":["ls"]}' }] });
    expect(parseRequest('responses', { input: 'hi' }).steps).toEqual([{ role: 'user', text: 'hi', media: [], reminders: [] }]);
  });

  it("Codex's environment message goes with the prompt after it, as context", () => {
    const parsed = parseRequest('responses', {
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello codex' }] },
      ],
    });
    expect(parsed.steps).toEqual([{ role: 'user', text: 'hello codex', media: [], reminders: ['<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'] }]);
  });

  it('anything that is not the expected shape is skipped, never thrown', () => {
    expect(parseRequest('anthropic', null).steps).toEqual([]);
    expect(parseRequest('chat', { messages: 'nope' }).steps).toEqual([]);
    expect(parseRequest('responses', { input: [1, null, { type: 'unknown' }] }).steps).toEqual([]);
  });
});

describe('fingerprints: DESIGN §12 normalisation', () => {
  const fp = (body: unknown) => fingerprints(parseRequest('anthropic', body).steps);

  it('a string content equals one text block; cache_control, reminders, the system prompt and a trailing system message are not identity', () => {
    const plain = fp({ system: 'A', messages: [{ role: 'user', content: 'hello' }] });
    const resumed = fp({
      system: [{ type: 'text', text: 'B, another CLAUDE.md', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }, { type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] },
        { role: 'system', content: 'trailing' },
      ],
    });
    expect(resumed).toEqual(plain);
  });

  it('each fingerprint chains the whole conversation before it; tool results are no link; ids and thinking are not identity', () => {
    const a = fp({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature: 's1' }, { type: 'tool_use', id: 'id1', name: 'W', input: { b: 1, a: 2 } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'id1', content: 'r' }] }] });
    const b = fp({ messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'id2', name: 'W', input: { a: 2, b: 1 } }] }] });
    expect(a[2]).toBeNull();
    expect(a.slice(0, 2)).toEqual(b);
    const other = fp({ messages: [{ role: 'user', content: 'q2' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'id1', name: 'W', input: { b: 1, a: 2 } }] }] });
    expect(other[1]).not.toBe(a[1]);
  });
});
