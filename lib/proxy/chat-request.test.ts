import { describe, expect, it } from 'vitest';
import { chatRequestOf, toolSchemasOf } from './chat-request.js';

const READ_SCHEMA = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

describe('chatRequestOf: a kept request as Chat Completions for the chat model', () => {
  it('carries an Anthropic conversation over: system blocks, reminders, tool use and its result, thinking left out', () => {
    const body = {
      model: 'claude-x',
      system: [{ type: 'text', text: 'You are Claude Code.' }, { type: 'text', text: 'Be brief.' }],
      tools: [{ name: 'Read', description: 'Read a file', input_schema: READ_SCHEMA }, { type: 'web_search_20250305', name: 'web_search' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: '<system-reminder>cwd /w</system-reminder>' }, { type: 'text', text: 'What is in a.txt?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'the model thinks', signature: 'sig' },
            { type: 'text', text: 'Reading it.' },
            { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.txt' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hello' }] },
      ],
    };
    const { messages, tools } = chatRequestOf('anthropic', body);
    expect(messages).toEqual([
      { role: 'system', content: 'You are Claude Code.\n\nBe brief.' },
      { role: 'user', content: '<system-reminder>cwd /w</system-reminder>\n\nWhat is in a.txt?' },
      { role: 'assistant', content: 'Reading it.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"path":"a.txt"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'hello' },
    ]);
    // The provider's own web search has no schema another model could call.
    expect(tools).toEqual([{ name: 'Read', description: 'Read a file', parameters: READ_SCHEMA }]);
  });

  it('carries a Responses conversation over: instructions, function calls grouped into one assistant message, their outputs', () => {
    const body = {
      model: 'gpt-x',
      instructions: 'You are Codex.',
      tools: [{ type: 'function', name: 'shell', description: 'Run a command', parameters: { type: 'object' } }],
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files' }] },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'hidden' }] },
        { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
      ],
    };
    const { messages, tools } = chatRequestOf('responses', body);
    expect(messages).toEqual([
      { role: 'system', content: 'You are Codex.' },
      { role: 'user', content: 'List the files' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt' },
    ]);
    expect(tools).toEqual([{ name: 'shell', description: 'Run a command', parameters: { type: 'object' } }]);
  });

  it('keeps a Chat Completions conversation as it was, an error result saying so, media named in the text', () => {
    const body = {
      messages: [
        { role: 'developer', content: 'Rules.' },
        { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
        { role: 'assistant', content: 'A cat.' },
      ],
      tools: [{ type: 'function', function: { name: 'look', description: '', parameters: { type: 'object' } } }],
    };
    expect(chatRequestOf('chat', body).messages).toEqual([
      { role: 'system', content: 'Rules.' },
      { role: 'user', content: 'Look\n\n[image: https://example.com/a.png]' },
      { role: 'assistant', content: 'A cat.' },
    ]);
    expect(toolSchemasOf(body)).toEqual([{ name: 'look', description: '', parameters: { type: 'object' } }]);
    const failed = chatRequestOf('anthropic', { messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'no such file', is_error: true }] }] });
    expect(failed.messages).toEqual([{ role: 'tool', tool_call_id: 't', content: 'Error: no such file' }]);
  });
});
