import { describe, expect, it } from 'vitest';
import { parseClaudeCode } from './claude-code.js';
import { NotThisFormatError, type ParsedSession } from './types.js';
import { fileLines, fixture, textLines } from './testing/fixtures.js';

const MAIN = fixture('claude-code', '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl');
const AGENT = fixture('claude-code', '-home-user-proj', 'agent-5e1f9a2b.jsonl');
const uuid = (nn: string) => `cc000000-0000-4000-8000-0000000000${nn}`;

function nodes(session: ParsedSession) {
  return session.turns.flat();
}

/** The branch from the head back to the root, along parentId. */
function branchOf(session: ParsedSession, headId = session.headId) {
  const byId = new Map(nodes(session).map((node) => [node.id, node]));
  const path = [];
  for (let at = headId; at; at = byId.get(at)?.parentId ?? null) path.unshift(byId.get(at)!);
  return path;
}

describe('Claude Code transcripts', () => {
  it('rebuilds the sample: the DAG, merged API responses, the rewind as a fork, tool nodes', async () => {
    const parsed = await parseClaudeCode(fileLines(MAIN), { file: 'proj/3f6c.jsonl' });
    expect(parsed.skipped).toEqual([]);
    expect(parsed.ignoredLines).toBe(0);
    const [session] = parsed.sessions;
    expect(session).toMatchObject({ id: 'cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f', source: 'claude-code', title: 'Fix parse_date dropping UTC offsets', headId: uuid('23') });
    expect(session!.meta).toMatchObject({ work_dir: '/home/user/proj', git_branch: 'main' });
    const branch = branchOf(session!);
    // 16 logical messages on the current branch, of which the 5 tool_result lines fold into tool nodes
    expect(branch.map((node) => `${node.role}:${node.id.slice(-2)}`)).toEqual([
      'user:01', 'assistant:02', 'assistant:05', 'assistant:08', 'assistant:10', 'user:15', 'assistant:16', 'assistant:18', 'assistant:21', 'user:22', 'assistant:23',
    ]);
    const texts = branch.map((node) => node.content).filter((text) => text !== '');
    expect(texts).toEqual([
      'The test in tests/test_dates.py is failing. Can you find out why?',
      "I'll start by running the failing test to see the error.",
      'The bug: parse_date slices the string to 19 characters, which throws away the "+02:00" offset, so the result is a naive datetime. I can switch it to datetime.fromisoformat. Should I go ahead?',
      'Yes, go ahead. Python 3.11+ only is fine, no new dependencies.',
      'Updated parse_date to use datetime.fromisoformat. Re-running the test:',
      'The test passes now: parse_date keeps the UTC offset, so utcoffset() returns timedelta(hours=2).',
      'Thanks! Summarize the change in one sentence.',
      'parse_date now uses datetime.fromisoformat instead of slicing the string, so timezone offsets are preserved.',
    ]);
    const all = nodes(session!);
    const abandoned = all.find((node) => node.id === uuid('11'))!;
    expect(abandoned.content).toBe('Yes, but it has to keep working on Python 3.8.');
    expect(abandoned.parentId).toBe(uuid('10'));
    expect(all.filter((node) => node.parentId === uuid('10')).map((node) => node.id)).toEqual([uuid('11'), uuid('15')]);
    expect(JSON.stringify(branch)).not.toContain('dateutil');
    // tool calls: one node per tool_use, under its merged assistant node, filled by its result
    const tools = all.filter((node) => node.role === 'tool');
    expect(tools.map((tool) => [tool.name, tool.calledBy?.slice(-2)])).toEqual([
      ['Bash', '02'], ['Read', '05'], ['Task', '08'], ['Edit', '12'], ['Edit', '16'], ['Bash', '18'],
    ]);
    expect(tools[0]!.metadata).toMatchObject({ tool_call_id: 'toolu_01Bash7YxQmT2nWc9LrV4kZ', is_error: true });
    expect(tools[2]!.content).toBe('Found 2 callers: src/report.py:14 and src/cli.py:31.');
    expect(tools[2]!.metadata!['subagentSessionId']).toBe('cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f-agent-5e1f9a2b');
    // M2's thinking block is kept aside, never as text
    expect(all.find((node) => node.id === uuid('05'))!.metadata!['thinking']).toEqual(expect.any(String));
    // each human prompt starts a turn: U1, U5, U6, U9
    expect(session!.turns.map((turn) => turn[0]!.id.slice(-2))).toEqual(['01', '11', '15', '22']);
    for (const turn of session!.turns) for (const node of turn) expect(node.createdAt).toBeGreaterThan(1_790_000_000);
  });

  it('a sub-agent file is its own session, linked to the parent and the Task call', async () => {
    const parsed = await parseClaudeCode(fileLines(AGENT), { file: 'proj/agent-5e1f9a2b.jsonl' });
    const [session] = parsed.sessions;
    expect(session!.id).toBe('cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f-agent-5e1f9a2b');
    expect(session!.meta['parent_session_id']).toBe('cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f');
    const branch = branchOf(session!);
    expect(branch[0]!.parentId).toBeNull();
    expect(branch[branch.length - 1]!.content).toBe('Found 2 callers: src/report.py:14 and src/cli.py:31.');
    expect(nodes(session!).filter((node) => node.role === 'tool').map((node) => node.name)).toEqual(['Grep']);
  });

  it('skips and reports broken lines, keeps an orphan as a root, and imports the rest', async () => {
    const parsed = await parseClaudeCode(fileLines(fixture('claude-code', 'broken-session.jsonl')), { file: 'broken-session.jsonl' });
    expect(parsed.skipped.map((entry) => entry.line)).toEqual([3, 4, 5]);
    expect(parsed.skipped[0]!.reason).toMatch(/not JSON/);
    expect(parsed.skipped[1]!.reason).toMatch(/not a JSON object/);
    expect(parsed.skipped[2]!.reason).toMatch(/message object/);
    const all = nodes(parsed.sessions[0]!);
    expect(all.map((node) => node.id.slice(-2))).toEqual(['01', '02', '06']);
    const orphan = all[2]!;
    expect(orphan.parentId).toBeNull();
    expect(orphan.metadata!['missingParent']).toBe('bb000000-0000-4000-8000-000000000003');
  });

  it('counts unknown line types without failing; refuses a file whose first line is not the format', async () => {
    const lines = [
      JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's1', timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: 'hi' } }),
      JSON.stringify({ type: 'atis-latch', value: 1 }),
      JSON.stringify({ type: 'cost-state', total: 0.1 }),
    ].join('\n');
    const parsed = await parseClaudeCode(textLines(lines), { file: 'x.jsonl' });
    expect(parsed.ignoredLines).toBe(2);
    // Named by type, so a report can say what they were.
    expect(parsed.ignoredLineTypes).toEqual({ 'atis-latch': 1, 'cost-state': 1 });
    expect(nodes(parsed.sessions[0]!).map((node) => node.content)).toEqual(['hi']);
    await expect(parseClaudeCode(textLines('this is not json\n{"type":"user"}'), { file: 'y.jsonl' })).rejects.toBeInstanceOf(NotThisFormatError);
  });

  it('joins a compaction through logicalParentUuid', async () => {
    const at = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}Z`;
    const lines = [
      { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's1', timestamp: at(1), message: { role: 'user', content: 'before' } },
      { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's1', timestamp: at(2), message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'ok' }] } },
      { type: 'system', subtype: 'compact_boundary', uuid: 'b1', parentUuid: null, logicalParentUuid: 'a1', sessionId: 's1', timestamp: at(3), compactMetadata: { trigger: 'auto', preTokens: 1000 } },
      { type: 'user', uuid: 'c1', parentUuid: 'b1', isCompactSummary: true, sessionId: 's1', timestamp: at(3), message: { role: 'user', content: 'summary of before' } },
      { type: 'user', uuid: 'u2', parentUuid: 'c1', sessionId: 's1', timestamp: at(4), message: { role: 'user', content: 'after' } },
    ].map((line) => JSON.stringify(line)).join('\n');
    const session = (await parseClaudeCode(textLines(lines), { file: 's1.jsonl' })).sessions[0]!;
    expect(branchOf(session).map((node) => [node.id, node.role])).toEqual([['u1', 'user'], ['a1', 'assistant'], ['c1', 'system'], ['u2', 'user']]);
  });
});
