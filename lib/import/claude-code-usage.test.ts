import { describe, expect, it } from 'vitest';
import { parseClaudeCode } from './claude-code.js';
import { CLAUDE_CODE_UNDERCOUNT } from './claude-code-usage.js';
import { textLines } from './testing/fixtures.js';

const at = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}Z`;
const usage = (output: number) => ({ input_tokens: 4, cache_creation_input_tokens: 1200, cache_read_input_tokens: 15000, output_tokens: output });

describe('golden: an imported Claude Code transcript’s usage (DESIGN §15)', () => {
  it('the lines of one message id are counted once, from the last, and marked estimated with the undercount named', async () => {
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's1', timestamp: at(1), message: { role: 'user', content: 'list the files' } },
      // One API response written as three lines (thinking, text, tool call), each repeating a usage snapshot.
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's1', timestamp: at(2), message: { id: 'msg_1', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'thinking', thinking: 'ls' }], usage: usage(8) } },
      { type: 'assistant', uuid: 'a2', parentUuid: 'a1', sessionId: 's1', timestamp: at(3), message: { id: 'msg_1', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'text', text: 'Listing.' }], usage: usage(8) } },
      { type: 'assistant', uuid: 'a3', parentUuid: 'a2', sessionId: 's1', timestamp: at(4), message: { id: 'msg_1', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }], usage: usage(31) } },
      { type: 'user', uuid: 'r1', parentUuid: 'a3', sessionId: 's1', timestamp: at(5), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' }] } },
      { type: 'assistant', uuid: 'b1', parentUuid: 'r1', sessionId: 's1', timestamp: at(6), message: { id: 'msg_2', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'text', text: 'One file.' }], usage: usage(5) } },
      { type: 'assistant', uuid: 'c1', parentUuid: 'b1', sessionId: 's1', timestamp: at(7), message: { id: 'msg_3', model: 'claude-sonnet-4-5', role: 'assistant', content: [{ type: 'text', text: 'No usage here.' }] } },
    ].map((line) => JSON.stringify(line)).join('\n');
    const parsed = await parseClaudeCode(textLines(lines), { file: 'x.jsonl' });
    const answers = parsed.sessions[0]!.turns.flat().filter((node) => node.role === 'assistant');
    expect(answers.map((node) => node.metadata!['usage'] ?? null)).toEqual([
      // msg_1: three lines, one exchange; its last snapshot (31), not 8 + 8 + 31
      { input: 4, output: 31, cacheRead: 15000, cacheWrite: 1200, reasoning: null, model: 'claude-sonnet-4-5', agent: 'claude-code', ttfbMs: null, durationMs: null, status: null, exact: false, estimate: CLAUDE_CODE_UNDERCOUNT },
      { input: 4, output: 5, cacheRead: 15000, cacheWrite: 1200, reasoning: null, model: 'claude-sonnet-4-5', agent: 'claude-code', ttfbMs: null, durationMs: null, status: null, exact: false, estimate: CLAUDE_CODE_UNDERCOUNT },
      // no usage in the transcript: unknown, not zero
      null,
    ]);
    expect(CLAUDE_CODE_UNDERCOUNT).toContain('undercount');
  });
});
