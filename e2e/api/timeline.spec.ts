import { join } from 'node:path';
import { appendMessage, createSession, expect, git, mutate, query, stateDirOf, test, type BranchMessage, type TimelineCommit } from '../fixtures';

interface TimelinePage {
  commits: TimelineCommit[];
  nextCursor: string | null;
}

interface DiffFile {
  path: string;
  status: string;
  patch: string;
}

/** A session with `turns` finished turns of one user message and one reply each. */
async function sessionWithTurns(api: Parameters<typeof mutate>[0], id: string, turns: number): Promise<string[]> {
  await createSession(api, { id });
  const shas: string[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    await appendMessage(api, id, { id: `u${turn}`, role: 'user', content: `question ${turn}` });
    await appendMessage(api, id, { id: `a${turn}`, role: 'assistant', content: `answer ${turn}` });
    const finalized = await mutate<{ sessionCommit: string }>(api, 'turn.finalize', { sessionId: id });
    shas.push(finalized.data.sessionCommit);
  }
  return shas;
}

test('timeline.list: newest first, each turn with its nodes; the cursor walks every commit once', async ({ user }) => {
  const shas = await sessionWithTurns(user.api, 'timeline', 5);
  const all = (await query<TimelinePage>(user.api, 'timeline.list', { sessionId: 'timeline' })).data;
  expect(all.nextCursor).toBeNull();
  // `session init` is the repo's birth, not a turn (issue 10): turns 5 to 1.
  expect(all.commits.map((c) => c.turn)).toEqual([5, 4, 3, 2, 1]);
  expect(all.commits.map((c) => c.sha)).toEqual([...shas].reverse());
  expect(all.commits[0]).toEqual({
    sha: shas[4],
    message: 'turn: question 5',
    createdAt: expect.any(Number),
    turn: 5,
    nodeIds: ['u5', 'a5'],
    projectCommit: null,
    // A session without a project folder: its turns say so.
    projectCommitSkipped: 'no_project',
    nodes: [
      { id: 'u5', role: 'user', name: '', firstLine: 'question 5', toolCalls: [], editOf: null },
      { id: 'a5', role: 'assistant', name: '', firstLine: 'answer 5', toolCalls: [], editOf: null },
    ],
    projectCommitInfo: null,
    retryForks: [],
    fileEdits: null,
    nestedGit: [],
    projectCommitSharedWith: [],
    sharedWith: [],
    linkedCommits: [],
  });
  expect(all.commits.map((c) => c.message)).not.toContain('session init');

  const walked: TimelineCommit[] = [];
  let cursor: string | null = null;
  do {
    const page: TimelinePage = (await query<TimelinePage>(user.api, 'timeline.list', { sessionId: 'timeline', limit: 2, ...(cursor ? { cursor } : {}) })).data;
    expect(page.commits.length).toBeLessThanOrEqual(2);
    walked.push(...page.commits);
    cursor = page.nextCursor;
  } while (cursor);
  expect(walked).toEqual(all.commits);

  expect((await query(user.api, 'timeline.list', { sessionId: 'timeline', limit: 201 })).status).toBe(400);
  const badCursor = await query(user.api, 'timeline.list', { sessionId: 'timeline', cursor: 'garbage' });
  expect(badCursor.status).toBe(400);
  expect(badCursor.body.error?.message).toBe('invalid cursor');
});

test('timeline.diff: the files a turn changed with their patches; the root commit against the empty tree', async ({ user }) => {
  const shas = await sessionWithTurns(user.api, 'diffs', 2);
  const diff = (await query<{ files: DiffFile[] }>(user.api, 'timeline.diff', { sessionId: 'diffs', sha: shas[1] })).data;
  const history = diff.files.filter((f) => f.path.startsWith('history/'));
  expect(history.map((f) => [f.path.replace(/^history\/\d+-/, ''), f.status])).toEqual([['u-u2.json', 'added'], ['a-a2.json', 'added']]);
  expect(history[0]!.patch).toMatch(/^diff --git a\/history\/\S+ b\/history\/\S+\nnew file mode 100644\n/);
  expect(history[0]!.patch).toContain('"output":"question 2"');
  expect(diff.files.find((f) => f.path === 'meta.json')).toMatchObject({ status: 'modified', patch: expect.stringContaining('"turn_count":2') });
  for (const file of diff.files) expect(Object.keys(file).sort()).toEqual(['patch', 'path', 'status', 'truncated']);

  // The root commit (session init, no longer listed as a turn) diffs against the empty tree.
  const root = git(join(stateDirOf(user.id), 'sessions', 'diffs'), 'rev-list', '--max-parents=0', 'HEAD');
  expect((await query(user.api, 'timeline.diff', { sessionId: 'diffs', sha: root })).data).toEqual({ files: [] });

  const unknown = await query(user.api, 'timeline.diff', { sessionId: 'diffs', sha: 'f'.repeat(40) });
  expect(unknown.status).toBe(404);
  expect(unknown.body.error?.message).toBe(`unknown commit: ${'f'.repeat(40)}`);
  // Another session's commit is not one of this session's.
  await sessionWithTurns(user.api, 'other-diffs', 1);
  const otherSha = (await query<TimelinePage>(user.api, 'timeline.list', { sessionId: 'other-diffs' })).data.commits[0]!.sha;
  expect((await query(user.api, 'timeline.diff', { sessionId: 'diffs', sha: otherSha })).status).toBe(404);
  for (const sha of ['HEAD', 'main', '--output=/tmp/x', 'F'.repeat(40)]) {
    expect((await query(user.api, 'timeline.diff', { sessionId: 'diffs', sha })).status, sha).toBe(400);
  }
});

test('timeline.at: the branch as it was at a turn, even after later turns and a head switch', async ({ user }) => {
  const shas = await sessionWithTurns(user.api, 'travel', 3);
  const at1 = await query<{ headId: string | null; messages: BranchMessage[] }>(user.api, 'timeline.at', { sessionId: 'travel', sha: shas[0] });
  expect(at1.status).toBe(200);
  expect(at1.data.headId).toBe('a1');
  expect(at1.data.messages.map((m) => m.id)).toEqual(['u1', 'a1']);
  await mutate(user.api, 'branch.setHead', { sessionId: 'travel', headId: 'a2' });
  const at3 = (await query<{ headId: string | null; messages: BranchMessage[] }>(user.api, 'timeline.at', { sessionId: 'travel', sha: shas[2] })).data;
  expect(at3.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u2', 'a2', 'u3', 'a3']);
  expect((await query(user.api, 'timeline.at', { sessionId: 'travel', sha: '0'.repeat(40) })).status).toBe(404);
});
