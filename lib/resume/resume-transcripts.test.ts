import { describe, expect, it } from 'vitest';
import { parseClaudeCode, parseCodex, type NumberedLine, type ParsedSession } from '../import/index.js';
import { fingerprints } from '../proxy/fingerprint.js';
import { parseRequest } from '../proxy/request.js';
import type { BranchMessage } from '../store/index.js';
import { anthropicMessages, claudeCodeTranscript, claudeProjectSlug } from './claude-code-transcript.js';
import { codexRollout, codexRolloutPath } from './codex-rollout.js';
import { resumeEntries } from './conversation.js';
import { resumeFingerprints } from './resume-fingerprints.js';
import { matchResume, proxySessionIdOf, type ResumeLink } from './resume-links.js';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');

function message(id: string, role: BranchMessage['role'], content: string, extra: Partial<BranchMessage> = {}): BranchMessage {
  return { id, seq: 0, role, content, parentId: null, calledBy: null, name: '', input: null, metadata: {}, createdAt: T0, siblings: [], toolCalls: [], ...extra };
}

/** A branch as the store reads it: a prompt, a model message with a call and its result, the answer, a second prompt and answer. */
const BRANCH: BranchMessage[] = [
  message('n1', 'user', 'Make a file a.txt with hello'),
  message('n2', 'assistant', 'I will write it.', {
    metadata: { model: 'claude-test' },
    toolCalls: [message('n3', 'tool', 'File created', { name: 'Write', input: { file_path: '/w/a.txt', content: 'hello' }, metadata: { tool_call_id: 'toolu_01' } })],
  }),
  message('n4', 'assistant', 'Done: a.txt holds hello.', { metadata: { model: 'claude-test' } }),
  message('n5', 'user', 'And b.txt?'),
  message('n6', 'assistant', 'Not yet.', { metadata: { model: 'claude-test' } }),
];

async function* linesOfText(text: string): AsyncGenerator<NumberedLine> {
  let line = 0;
  for (const part of text.split('\n')) yield { line: ++line, text: part };
}

/** The branch the importer reads: from the head back along parentId. */
function branchOf(session: ParsedSession) {
  const nodes = session.turns.flat();
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const path = [];
  for (let at = session.headId; at; at = byId.get(at)?.parentId ?? null) path.unshift(byId.get(at)!);
  return { path, tools: nodes.filter((node) => node.role === 'tool') };
}

describe('a branch written for the agent to resume', () => {
  const entries = resumeEntries(BRANCH);
  const agentSessionId = '7d3e0c2a-1b4f-4c6d-8e9f-0a1b2c3d4e5f';

  it('as a Claude Code transcript, reads back through our importer as the same conversation', async () => {
    const text = claudeCodeTranscript(entries, { agentSessionId, cwd: '/home/me/proj' });
    const parsed = await parseClaudeCode(linesOfText(text), { file: `${agentSessionId}.jsonl` });
    expect(parsed.skipped).toEqual([]);
    const [session] = parsed.sessions;
    expect(session!.id).toBe(`cc-${agentSessionId}`);
    expect(session!.meta).toMatchObject({ work_dir: '/home/me/proj', model: 'claude-test' });
    const { path, tools } = branchOf(session!);
    expect(path.map((node) => [node.role, node.content])).toEqual([
      ['user', 'Make a file a.txt with hello'],
      ['assistant', 'I will write it.'],
      ['assistant', 'Done: a.txt holds hello.'],
      ['user', 'And b.txt?'],
      ['assistant', 'Not yet.'],
    ]);
    expect(tools.map((tool) => [tool.name, tool.input, tool.content, tool.metadata?.['tool_call_id'], tool.calledBy === path[1]!.id])).toEqual([
      ['Write', { file_path: '/w/a.txt', content: 'hello' }, 'File created', 'toolu_01', true],
    ]);
    // Every line is chained to the one before, under the new session id.
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.every((line, i) => line['sessionId'] === agentSessionId && line['parentUuid'] === (i === 0 ? null : lines[i - 1]!['uuid']))).toBe(true);
  });

  it('as a Codex rollout, reads back through our importer, in the folder Codex looks in', async () => {
    const now = new Date(2026, 11, 7, 6, 5, 9);
    const text = codexRollout(entries, { agentSessionId, cwd: '/home/me/proj', now });
    const path = codexRolloutPath(agentSessionId, now);
    expect(path).toBe(`sessions/2026/12/07/rollout-2026-12-07T06-05-09-${agentSessionId}.jsonl`);
    // No provider named: Codex refuses to resume a thread under another provider than the one it names.
    expect(JSON.parse(text.split('\n')[0]!)).toMatchObject({ type: 'session_meta', payload: { id: agentSessionId, cwd: '/home/me/proj' } });
    expect(text.split('\n')[0]).not.toContain('model_provider');
    const parsed = await parseCodex(linesOfText(text), { file: path });
    expect(parsed.skipped).toEqual([]);
    const [session] = parsed.sessions;
    expect(session!.id).toBe(`codex-${agentSessionId}`);
    const { path: branch, tools } = branchOf(session!);
    // Codex keeps a message and the calls after it as two steps of the model; the texts come back in order.
    expect(branch.filter((node) => node.content !== '').map((node) => [node.role, node.content])).toEqual([
      ['user', 'Make a file a.txt with hello'],
      ['assistant', 'I will write it.'],
      ['assistant', 'Done: a.txt holds hello.'],
      ['user', 'And b.txt?'],
      ['assistant', 'Not yet.'],
    ]);
    expect(tools.map((tool) => [tool.name, tool.input, tool.content, tool.metadata?.['tool_call_id']])).toEqual([['Write', { file_path: '/w/a.txt', content: 'hello' }, 'File created', 'toolu_01']]);
  });

  it('names the Claude Code folder as Claude Code does', () => {
    expect(claudeProjectSlug('/home/me/my proj.v2')).toBe('-home-me-my-proj-v2');
    // A long path: cut at 200 and the path's hash (Java's hashCode, base 36) after it.
    const long = `/${'a'.repeat(250)}`;
    let hash = 0;
    for (const char of long) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
    expect(claudeProjectSlug(long)).toBe(`-${'a'.repeat(199)}-${Math.abs(hash).toString(36)}`);
  });
});

describe('recognising the resumed run', () => {
  const entries = resumeEntries(BRANCH);
  const link: ResumeLink = { agent: 'claude', agentSessionId: '7d3e0c2a-1b4f-4c6d-8e9f-0a1b2c3d4e5f', sessionId: 'cc-original', nodeId: 'n6', turn: 2, createdAt: T0, fingerprints: resumeFingerprints('claude', entries) };
  /** What the resumed agent sends: the history it was given, then a new prompt. */
  const request = parseRequest('anthropic', { messages: [...anthropicMessages(entries), { role: 'user', content: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }, { type: 'text', text: 'Now b.txt' }] }] });
  const chain = fingerprints(request.steps);

  it('pairs each message of the history with its node', () => {
    expect(link.fingerprints.map(([, nodeId]) => nodeId)).toEqual(['n1', 'n2', 'n4', 'n5', 'n6']);
  });

  it('finds the link by the id the agent kept, and the last step of the history in the request', () => {
    const match = matchResume([link], proxySessionIdOf(link), chain);
    expect(match).toMatchObject({ nodeId: 'n6', stepIndex: request.steps.length - 2 });
  });

  it('finds it by the history alone when the agent gave the run another id', () => {
    expect(matchResume([link], 'cc-another', chain)?.nodeId).toBe('n6');
  });

  it('a conversation that is not that history matches nothing', () => {
    const other = fingerprints(parseRequest('anthropic', { messages: [{ role: 'user', content: 'Make a file a.txt with hello!' }] }).steps);
    expect(matchResume([link], 'cc-another', other)).toBeNull();
  });

  it('without the id, a request that holds only the beginning of the history is another conversation', () => {
    const cut = fingerprints(parseRequest('anthropic', { messages: [...anthropicMessages(entries.slice(0, 4)), { role: 'user', content: 'again' }] }).steps);
    expect(matchResume([link], 'cc-another', cut)).toBeNull();
  });

  it('a history cut short continues from the last message it still holds', () => {
    const cut = fingerprints(parseRequest('anthropic', { messages: [...anthropicMessages(entries.slice(0, 4)), { role: 'user', content: 'again' }] }).steps);
    expect(matchResume([link], proxySessionIdOf(link), cut)?.nodeId).toBe('n5');
  });
});
