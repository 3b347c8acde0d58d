import { describe, expect, it } from 'vitest';
import { modelMessages, userContent, type ConversationMessage } from './conversation.js';

function message(fields: Partial<ConversationMessage>): ConversationMessage {
  return { id: 'x', role: 'user', content: '', metadata: {}, toolCalls: [], ...fields };
}

describe('the branch as the model reads it', () => {
  it('carries tool calls with their answers and drops calls never answered', () => {
    const tool: ConversationMessage['toolCalls'][number] = { content: 'wrote 1 bytes', metadata: { tool_call_id: 'c1' } };
    const branch = [
      message({ id: 'u', role: 'user', content: 'do it' }),
      message({ id: 'a1', role: 'assistant', content: '', metadata: { tool_calls: [{ id: 'c1', name: 'write_file', arguments: '{}' }, { id: 'c2', name: 'read_file', arguments: '{}' }] }, toolCalls: [tool] }),
      message({ id: 'a2', role: 'assistant', content: 'done' }),
    ];
    expect(modelMessages('sys', branch)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'do it' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'write_file', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'wrote 1 bytes' },
      { role: 'assistant', content: 'done' },
    ]);
  });

  it('inlines small text attachments and names the others', () => {
    expect(userContent('see', [{ id: 'a.txt', name: 'a.txt', size: 2, mime: 'text/plain', text: 'hi' }, { id: 'b.png', name: 'b.png', size: 9, mime: 'image/png' }])).toBe(
      'see\n\n<file name="a.txt">\nhi\n</file>\n[attachment: b.png (image/png, 9 bytes)]',
    );
  });
});
