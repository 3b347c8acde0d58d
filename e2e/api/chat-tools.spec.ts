import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cookieHeaderOf, expect, git, makeProjectRepo, MODEL_NAME, mutate, openEvents, query, test, workspaceOf, type Message, type ProjectCommit, type ProjectSummary, type TimelineCommit } from '../fixtures';
import { branchOf, modelRequests, send, turnEnded } from './chat-helpers';

async function project(api: Parameters<typeof mutate>[0], path: string): Promise<ProjectSummary> {
  const created = await mutate<ProjectSummary>(api, 'project.create', { path });
  if (created.status !== 200) throw new Error(`project.create failed: ${JSON.stringify(created.body)}`);
  return created.data;
}

const tool = (name: string, args: unknown) => `[[tool:${name} ${JSON.stringify(args)}]]`;

test('a tool write in a project yields an agent commit of exactly that file, undoable', async ({ user }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'site'));
  const before = git(dir, 'rev-parse', 'HEAD');
  const site = await project(user.api, 'site');
  const content = `Add a greeting ${tool('write_file', { path: 'docs/hello.md', content: '# Hello\n' })}`;
  const { sessionId } = await send(user.api, { projectId: site.id, content });
  const session = await turnEnded(user.api, sessionId);
  expect(session).toMatchObject({ status: 'idle', turnCount: 1, project: 'site' });
  expect(readFileSync(join(dir, 'docs', 'hello.md'), 'utf8')).toBe('# Hello\n');

  const commits = (await query<ProjectCommit[]>(user.api, 'project.commits', { id: site.id })).data;
  expect(commits).toEqual([
    { sha: git(dir, 'rev-parse', 'HEAD'), message: `[agent ${sessionId}] turn 1: ${[...content].slice(0, 60).join('')}`, author: `agent (${MODEL_NAME} via Entity Memory)`, createdAt: expect.any(Number), sessionId, turn: 1, undone: false },
  ]);
  expect(git(dir, 'rev-parse', 'HEAD~1')).toBe(before);
  expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('docs/hello.md');
  // Beside the session's turn commit in the timeline.
  const timeline = (await query<{ commits: TimelineCommit[] }>(user.api, 'timeline.list', { sessionId })).data.commits;
  expect(timeline[0]).toMatchObject({ turn: 1, projectCommit: commits[0]!.sha });

  // The transcript: the call under the reply that made it, then the answer.
  const branch = await branchOf(user.api, sessionId);
  expect(branch.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
  expect(branch[1]!.toolCalls.map((call) => [call.name, call.content])).toEqual([['write_file', 'wrote 8 bytes to docs/hello.md']]);
  expect(branch[2]!.content).toBe('Tool result: wrote 8 bytes to docs/hello.md');
  // The model was offered the four tools.
  const [first] = await modelRequests('Add a greeting');
  expect((first!.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['read_file', 'write_file', 'list_directory', 'search_text']);

  // Undo puts the file back and says what it restored.
  const undone = await mutate<{ paths: string[]; method: string }>(user.api, 'turn.undo', { sessionId, turn: 1 });
  expect(undone.data).toMatchObject({ method: 'reset', paths: ['docs/hello.md'] });
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(before);
});

test('a dirty project tree yields the skip reason and no commit', async ({ user }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'dirty'));
  writeFileSync(join(dir, 'README.md'), '# my unsaved edit\n');
  const head = git(dir, 'rev-parse', 'HEAD');
  const dirty = await project(user.api, 'dirty');
  const events = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  try {
    await events.waitForComment('connected');
    const { sessionId } = await send(user.api, { projectId: dirty.id, content: `Fix the readme ${tool('write_file', { path: 'README.md', content: '# fixed\n' })}` });
    const skipped = await events.waitFor((event) => event.type === 'project_commit_skipped' && (event.data as { sessionId: string }).sessionId === sessionId, 10_000);
    expect(skipped.data).toMatchObject({ projectId: dirty.id, reason: 'dirty_tree', message: expect.stringMatching(/README\.md/) });
    expect((await turnEnded(user.api, sessionId)).status).toBe('idle');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
    expect((await query<ProjectCommit[]>(user.api, 'project.commits', { id: dirty.id })).data).toEqual([]);
  } finally {
    events.close();
  }
});

test('a tool path outside the project is refused, and the refusal is in the transcript', async ({ user }) => {
  makeProjectRepo(user.id, 'jail');
  const jail = await project(user.api, 'jail');
  writeFileSync(join(workspaceOf(user.id), 'outside.txt'), 'not for the agent');
  const content = `Peek ${tool('read_file', { path: '../outside.txt' })} ${tool('write_file', { path: '.git/hooks/pre-commit', content: 'x' })}`;
  const { sessionId } = await send(user.api, { projectId: jail.id, content });
  await turnEnded(user.api, sessionId);
  const nodes = (await query<{ messages: Message[] }>(user.api, 'message.nodes', { sessionId })).data.messages;
  const tools = nodes.filter((node) => node.role === 'tool');
  expect(tools.map((node) => [node.name, node.metadata['refused']])).toEqual([
    ['read_file', true],
    ['write_file', true],
  ]);
  expect(tools[0]!.content).toMatch(/^Refused: \.\.\/outside\.txt leads out of the project folder/);
  expect(tools[1]!.content).toMatch(/^Refused: .*\.git directory/);
  const reply = (await branchOf(user.api, sessionId)).at(-1)!;
  expect(reply.content).toMatch(/^Tool result: Refused: /);
  expect(JSON.stringify(reply)).not.toContain('not for the agent');
  expect((await query<ProjectCommit[]>(user.api, 'project.commits', { id: jail.id })).data).toEqual([]);
});

test('a tool result over 64 KB reaches the model cut, with the whole kept as an attachment', async ({ user }) => {
  const dir = makeProjectRepo(user.id, 'big');
  writeFileSync(join(dir, 'big.txt'), 'x'.repeat(100_000));
  git(dir, 'add', 'big.txt');
  git(dir, 'commit', '-q', '-m', 'big');
  const big = await project(user.api, 'big');
  const { sessionId } = await send(user.api, { projectId: big.id, content: `Read it ${tool('read_file', { path: 'big.txt' })}` });
  await turnEnded(user.api, sessionId);
  const result = (await query<{ messages: Message[] }>(user.api, 'message.nodes', { sessionId })).data.messages.find((node) => node.role === 'tool')!;
  expect(result.content.startsWith('x'.repeat(65_536))).toBe(true);
  expect(result.content).toMatch(/\[cut: the result was 100000 bytes; .* kept as attachment tool-result-call_1\.txt\]$/);
  const download = await user.api.get(`/api/attachments/${sessionId}/${result.metadata['attachment'] as string}`);
  expect(download.status()).toBe(200);
  expect((await download.body()).length).toBe(100_000);
});
