import { describe, expect, it } from 'vitest';
import { parseCodex } from './codex.js';
import { NotThisFormatError, type ParsedSession } from './types.js';
import { fileLines, fixture, textLines } from './testing/fixtures.js';

const ROLLOUT = fixture('codex', '2026', '11', '20', 'rollout-2026-11-20T10-00-00-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b.jsonl');

function branchOf(session: ParsedSession) {
  const byId = new Map(session.turns.flat().map((node) => [node.id, node]));
  const path = [];
  for (let at = session.headId; at; at = byId.get(at)?.parentId ?? null) path.unshift(byId.get(at)!);
  return path;
}

describe('Codex rollouts', () => {
  it('rebuilds the sample: each prompt and reply once, context left out, tool calls kept', async () => {
    const parsed = await parseCodex(fileLines(ROLLOUT), { file: 'rollout.jsonl' });
    expect(parsed.skipped).toEqual([]);
    const [session] = parsed.sessions;
    expect(session).toMatchObject({ id: 'codex-019aa1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b', source: 'codex' });
    expect(session!.meta).toMatchObject({ work_dir: '/home/user/proj', model: 'gpt-5.1-codex', codex_version: '0.63.0' });
    const all = session!.turns.flat();
    const text = branchOf(session!).filter((node) => node.content !== '').map((node) => `${node.role}: ${String(node.content)}`);
    expect(text).toEqual([
      'user: Add a --verbose flag to the CLI in src/cli.py.',
      'assistant: Added `-v/--verbose` to `build_parser()` in src/cli.py; it is a store_true flag that defaults to off.',
      'user: Now run the tests.',
      'assistant: All 12 tests pass.',
      'user: Also document the flag in README.md.',
      'assistant: Documented `--verbose` in the Usage section of README.md.',
      'user: What exactly does --verbose print?',
      'assistant: Right now nothing: the flag is parsed but no code reads `args.verbose` yet. I can wire it into the report loop if you want.',
      'user: Leave it for now and commit the changes with a sensible message.',
      'assistant: Committed as 7c1e2d3 ("cli: add --verbose flag").',
    ]);
    expect(all.filter((node) => node.role === 'user')).toHaveLength(5);
    expect(JSON.stringify(all)).not.toContain('environment_context');
    expect(JSON.stringify(all)).not.toContain('AGENTS.md');
    expect(JSON.stringify(all)).not.toContain('encrypted_content');
    const tools = all.filter((node) => node.role === 'tool');
    expect(tools.map((tool) => [tool.metadata!['tool_call_id'], tool.name])).toEqual([
      ['call_k3Jd8QwZr1Tn5VbX2mLp7Ya', 'shell'],
      ['call_Pq2Wx9Ez4Rt7Yu1Io3As6Df', 'apply_patch'],
      ['call_Zx8Cv5Bn2Mq7Wa4Se1Dr9Ft', 'shell'],
      ['call_Gh6Jk3Lq0Wz7Xc4Vb1Nm8As', 'shell'],
      ['call_Ty5Ui2Op9As6Df3Gh0Jk7Lz', 'apply_patch'],
      ['call_Vb9Nm6Qw3Er0Ty7Ui4Op1As', 'shell'],
    ]);
    expect(String(tools[0]!.content)).toMatch(/^import argparse/);
    expect(tools[0]!.metadata).toMatchObject({ exit_code: 0 });
    expect(tools[0]!.input).toMatchObject({ command: ['bash', '-lc', "sed -n '1,40p' src/cli.py"] });
    // the two calls of turn 1 hang off one assistant step, which the reply follows
    expect(tools[0]!.calledBy).toBe(tools[1]!.calledBy);
    const reasoned = all.filter((node) => typeof node.metadata?.['reasoning'] === 'string').map((node) => node.metadata!['reasoning']);
    expect(reasoned).toEqual(['**Inspecting the CLI entry point**', '**Checking flag usage**']);
    expect(session!.turns).toHaveLength(5);
  });

  it('skips and reports broken lines, leaves out an output without its call, keeps the rest', async () => {
    const parsed = await parseCodex(fileLines(fixture('codex', 'broken-rollout.jsonl')), { file: 'broken-rollout.jsonl' });
    expect(parsed.skipped.map((entry) => entry.line)).toEqual([3, 4, 5, 6]);
    expect(parsed.skipped[2]!.reason).toMatch(/call never made/);
    const [session] = parsed.sessions;
    expect(session!.id).toBe('codex-019aa1d0-aaaa-7bbb-8ccc-ddddeeeeffff');
    expect(session!.turns.flat().map((node) => [node.role, node.content])).toEqual([
      ['user', 'Show the git log for the last 3 commits.'],
      ['assistant', 'The last commit is 7c1e2d3 (cli: add --verbose flag).'],
    ]);
  });

  it('a rollback leaves the rolled-back turns as a dead branch and forks the next prompt', async () => {
    const at = (s: number) => `2026-11-20T10:00:${String(s).padStart(2, '0')}Z`;
    const lines = [
      { timestamp: at(0), type: 'session_meta', payload: { id: 't1' } },
      { timestamp: at(1), type: 'event_msg', payload: { type: 'user_message', message: 'one' } },
      { timestamp: at(2), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'first' }] } },
      { timestamp: at(3), type: 'event_msg', payload: { type: 'user_message', message: 'two' } },
      { timestamp: at(4), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'second' }] } },
      { timestamp: at(5), type: 'event_msg', payload: { type: 'thread_rolled_back', num_turns: 1 } },
      { timestamp: at(6), type: 'event_msg', payload: { type: 'user_message', message: 'two, again' } },
      { timestamp: at(7), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'better' }] } },
      { timestamp: at(8), type: 'brand_new_type', payload: {} },
    ].map((line) => JSON.stringify(line)).join('\n');
    const parsed = await parseCodex(textLines(lines), { file: 'rollout-t1.jsonl' });
    expect(parsed.ignoredLines).toBe(1);
    const session = parsed.sessions[0]!;
    expect(branchOf(session).map((node) => node.content)).toEqual(['one', 'first', 'two, again', 'better']);
    const all = session.turns.flat();
    const dead = all.find((node) => node.content === 'two')!;
    expect(dead.parentId).toBe(all.find((node) => node.content === 'first')!.id);
    expect(all.find((node) => node.content === 'two, again')!.parentId).toBe(dead.parentId);
  });

  it('refuses a file that is not a rollout at all', async () => {
    await expect(parseCodex(textLines('[1,2,3]'), { file: 'x.jsonl' })).rejects.toBeInstanceOf(NotThisFormatError);
  });
});
