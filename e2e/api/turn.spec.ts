import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import {
  appendMessage,
  createSession,
  expect,
  getSession,
  git,
  makeProjectRepo,
  MODEL_NAME,
  mutate,
  query,
  test,
  workspaceOf,
  type FinalizeTurnResult,
  type NodePage,
  type ProjectCommit,
  type ProjectSummary,
  type SessionRow,
  type TimelineCommit,
} from '../fixtures';

async function createProject(api: Parameters<typeof mutate>[0], path: string, name?: string): Promise<ProjectSummary> {
  const created = await mutate<ProjectSummary>(api, 'project.create', { path, ...(name ? { name } : {}) });
  if (created.status !== 200) throw new Error(`project.create failed: ${JSON.stringify(created.body)}`);
  return created.data;
}

test('a turn in a clean project repo ends with an agent commit beside the session commit; undo and redo move it', async ({ user }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'app'));
  const initial = git(dir, 'rev-parse', 'HEAD');
  const project = await createProject(user.api, 'app', 'My App');
  expect(project).toMatchObject({ name: 'My App', path: dir, isDefault: false, pathMissing: false, autoCommit: true });
  const session = await createSession(user.api, { id: 'agent-turn', projectId: project.id });
  expect(session.project).toBe('My App');

  const begun = await mutate<{ turn: number; projectClean: boolean | null }>(user.api, 'turn.begin', { sessionId: 'agent-turn' });
  expect(begun.data).toEqual({ turn: 1, projectClean: true });
  expect((await getSession(user.api, 'agent-turn')).status).toBe('running');
  const again = await mutate(user.api, 'turn.begin', { sessionId: 'agent-turn' });
  expect(again.status).toBe(409);
  expect(again.body.error?.message).toMatch(/already running/);

  // The agent's work in the folder, and the conversation of the turn.
  writeFileSync(join(dir, 'hello.txt'), 'hello from the agent\n');
  const u1 = await appendMessage(user.api, 'agent-turn', { role: 'user', content: 'Create hello.txt please\nwith a greeting' });
  const a1 = await appendMessage(user.api, 'agent-turn', { role: 'assistant', content: 'Done.' });
  const finalized = await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'agent-turn', writtenPaths: ['hello.txt'], model: MODEL_NAME });
  expect(finalized.status).toBe(200);
  expect(finalized.data).toEqual({ turn: 1, sessionCommit: expect.stringMatching(/^[0-9a-f]{40}$/), projectCommit: expect.stringMatching(/^[0-9a-f]{40}$/), projectCommitSkipped: null });
  const { sessionCommit, projectCommit } = finalized.data;

  // In the project's own git: one commit on top of the person's, by the agent.
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(projectCommit);
  expect(git(dir, 'rev-parse', 'HEAD~1')).toBe(initial);
  expect(git(dir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s')).toBe(
    `agent (${MODEL_NAME} via Entity Memory) <agent@openprogram.local>|agent (${MODEL_NAME} via Entity Memory) <agent@openprogram.local>|[agent agent-turn] turn 1: Create hello.txt please`,
  );
  expect(git(dir, 'log', '-1', '--format=%(trailers:only,unfold)')).toBe('OpenProgram-Session: agent-turn\nOpenProgram-Turn: 1');
  expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('hello.txt');
  expect(git(dir, 'status', '--porcelain')).toBe('');
  expect(await getSession(user.api, 'agent-turn')).toMatchObject({ status: 'idle', turnCount: 1 });

  const commits = (await query<ProjectCommit[]>(user.api, 'project.commits', { id: project.id })).data;
  expect(commits).toEqual([{ sha: projectCommit, message: '[agent agent-turn] turn 1: Create hello.txt please', author: `agent (${MODEL_NAME} via Entity Memory)`, createdAt: expect.any(Number), sessionId: 'agent-turn', turn: 1, undone: false }]);
  expect((await query(user.api, 'project.commits', { id: project.id, limit: 201 })).status).toBe(400);
  const timeline = (await query<{ commits: TimelineCommit[] }>(user.api, 'timeline.list', { sessionId: 'agent-turn' })).data.commits;
  expect(timeline[0]).toMatchObject({ sha: sessionCommit, turn: 1, message: 'turn: Create hello.txt please', nodeIds: [u1.id, a1.id], projectCommit });

  // The binding is frozen now: the same project is accepted, another is not.
  expect((await mutate<SessionRow>(user.api, 'project.setForSession', { sessionId: 'agent-turn', projectId: project.id })).status).toBe(200);
  const frozen = await mutate(user.api, 'project.setForSession', { sessionId: 'agent-turn', projectId: 'default' });
  expect(frozen.status).toBe(409);
  expect(frozen.body.error?.message).toBe('project is frozen after the first turn');

  // Undo moves the agent commit off HEAD and the file with it; the session records it.
  const undone = await mutate<{ turn: number; method: string; paths: string[]; nodeId: string }>(user.api, 'turn.undo', { sessionId: 'agent-turn', turn: 1 });
  expect(undone.status).toBe(200);
  expect(undone.data).toMatchObject({ turn: 1, method: 'reset', paths: ['hello.txt'] });
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(initial);
  expect(existsSync(join(dir, 'hello.txt'))).toBe(false);
  const nodes = (await query<NodePage>(user.api, 'message.nodes', { sessionId: 'agent-turn' })).data.messages;
  expect(nodes.find((m) => m.id === undone.data.nodeId)).toMatchObject({ name: 'turn/undo' });
  expect((await getSession(user.api, 'agent-turn')).headId).toBe(a1.id);
  const twice = await mutate(user.api, 'turn.undo', { sessionId: 'agent-turn', turn: 1 });
  expect(twice.status).toBe(412);
  expect(twice.body.error?.message).toMatch(/already undone/);

  const redone = await mutate<{ method: string; paths: string[] }>(user.api, 'turn.redo', { sessionId: 'agent-turn', turn: 1 });
  expect(redone.status).toBe(200);
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(projectCommit);
  expect(readFileSync(join(dir, 'hello.txt'), 'utf8')).toBe('hello from the agent\n');
  expect((await mutate(user.api, 'turn.undo', { sessionId: 'agent-turn', turn: 7 })).status).toBe(412);
});

test('a tree that was dirty at the start gets no agent commit, and the answer says why', async ({ user }) => {
  const dir = makeProjectRepo(user.id, 'dirty');
  const head = git(dir, 'rev-parse', 'HEAD');
  const project = await createProject(user.api, join(workspaceOf(user.id), 'dirty'));
  await createSession(user.api, { id: 'dirty-turn', projectId: project.id });
  // The person's own unfinished edit.
  writeFileSync(join(dir, 'README.md'), '# dirty\nwork in progress\n');

  const begun = await mutate<{ turn: number; projectClean: boolean }>(user.api, 'turn.begin', { sessionId: 'dirty-turn' });
  expect(begun.data).toEqual({ turn: 1, projectClean: false });
  writeFileSync(join(dir, 'agent.txt'), 'agent output\n');
  await appendMessage(user.api, 'dirty-turn', { role: 'user', content: 'write agent.txt' });
  // An external agent: its writes are unknown, so only a clean tree could be committed.
  const finalized = await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'dirty-turn' });
  expect(finalized.status).toBe(200);
  expect(finalized.data.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
  expect(finalized.data.projectCommit).toBeNull();
  expect(finalized.data.projectCommitSkipped).toEqual({ reason: 'dirty_tree', message: expect.any(String) });
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  expect((await query(user.api, 'project.commits', { id: project.id })).data).toEqual([]);

  // With auto-commit off, the reason is `disabled`.
  git(dir, 'checkout', '--', 'README.md');
  rmAgentFile(dir);
  const off = await mutate<ProjectSummary>(user.api, 'project.setAutoCommit', { id: project.id, on: false });
  expect(off.data.autoCommit).toBe(false);
  await mutate(user.api, 'turn.begin', { sessionId: 'dirty-turn' });
  writeFileSync(join(dir, 'agent.txt'), 'agent output\n');
  await appendMessage(user.api, 'dirty-turn', { role: 'user', content: 'again' });
  const disabled = await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'dirty-turn', writtenPaths: ['agent.txt'] });
  expect(disabled.data).toMatchObject({ turn: 2, projectCommit: null, projectCommitSkipped: { reason: 'disabled' } });
  expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
});

function rmAgentFile(dir: string): void {
  git(dir, 'clean', '-fdq');
}

test('finalize without begin commits the session only; nothing new means no commit', async ({ user }) => {
  await createSession(user.api, { id: 'plain-turn' });
  await appendMessage(user.api, 'plain-turn', { role: 'user', content: '  First line of the question\nsecond line' });
  await appendMessage(user.api, 'plain-turn', { role: 'assistant', content: 'answer' });
  const first = await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'plain-turn' });
  expect(first.data).toEqual({ turn: 1, sessionCommit: expect.stringMatching(/^[0-9a-f]{40}$/), projectCommit: null, projectCommitSkipped: null });
  // The first turn names the session (the truncated title at once; the model's may follow).
  await expect.poll(async () => (await getSession(user.api, 'plain-turn')).title).not.toBe('');

  const nothing = await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'plain-turn' });
  expect(nothing.data).toEqual({ turn: 1, sessionCommit: null, projectCommit: null, projectCommitSkipped: null });

  await appendMessage(user.api, 'plain-turn', { role: 'user', content: 'more' });
  const named = await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'plain-turn', commitMessage: 'my own message', status: 'cancelled' });
  expect(named.data.turn).toBe(2);
  expect(await getSession(user.api, 'plain-turn')).toMatchObject({ status: 'cancelled', turnCount: 2 });
  const { commits } = (await query<{ commits: TimelineCommit[] }>(user.api, 'timeline.list', { sessionId: 'plain-turn' })).data;
  expect(commits.map((c) => [c.turn, c.message])).toEqual([[2, 'my own message'], [1, 'turn: First line of the question']]);

  // Undo needs a project repository.
  const noRepo = await mutate(user.api, 'turn.undo', { sessionId: 'plain-turn', turn: 1 });
  expect(noRepo.status).toBe(412);
  expect(noRepo.body.error?.message).toMatch(/no project repository/);
});

test('a moved project folder is missing until relocated; the session that asked gets a record', async ({ user }) => {
  makeProjectRepo(user.id, 'before-move');
  const project = await createProject(user.api, 'before-move');
  await createSession(user.api, { id: 'mover', projectId: project.id });
  await appendMessage(user.api, 'mover', { id: 'u1', role: 'user', content: 'hi' });
  const oldPath = join(realpathSync(workspaceOf(user.id)), 'before-move');
  const newPath = join(realpathSync(workspaceOf(user.id)), 'after-move');

  // Relocation only repairs: while the folder is where it was, it is refused.
  makeProjectRepo(user.id, 'after-move-early');
  const early = await mutate(user.api, 'project.relocate', { id: project.id, path: 'after-move-early' });
  expect(early.status).toBe(412);

  renameSync(oldPath, newPath);
  const listed = (await query<ProjectSummary[]>(user.api, 'project.list')).data;
  expect(listed[0]).toMatchObject({ id: 'default', name: 'Home', isDefault: true });
  expect(listed.find((p) => p.id === project.id)).toMatchObject({ pathMissing: true, path: oldPath, sessionCount: 1 });
  const blocked = await mutate(user.api, 'turn.begin', { sessionId: 'mover' });
  expect(blocked.status).toBe(412);
  expect(blocked.body.error?.message).toMatch(/missing/);

  const relocated = await mutate<{ oldPath: string; path: string; nodeId: string }>(user.api, 'project.relocate', { id: project.id, path: 'after-move', sessionId: 'mover' });
  expect(relocated.status).toBe(200);
  expect(relocated.data).toEqual({ oldPath, path: newPath, nodeId: expect.stringMatching(/^reloc_/) });
  expect((await query<ProjectSummary[]>(user.api, 'project.list')).data.find((p) => p.id === project.id)).toMatchObject({ pathMissing: false, path: newPath });
  const nodes = (await query<NodePage>(user.api, 'message.nodes', { sessionId: 'mover' })).data.messages;
  expect(nodes.find((m) => m.id === relocated.data.nodeId)).toMatchObject({ name: 'project/relocate', content: `${oldPath} → ${newPath}` });
  // A record does not move the head.
  expect((await getSession(user.api, 'mover')).headId).toBe('u1');
  expect((await mutate(user.api, 'turn.begin', { sessionId: 'mover' })).status).toBe(200);

  expect((await mutate(user.api, 'project.relocate', { id: 'default', path: 'after-move' })).status).toBe(400);
  expect((await mutate(user.api, 'project.relocate', { id: project.id, path: 'after-move', sessionId: 'nobody' })).status).toBe(404);
});

test('projects: create is idempotent per folder, unregister leaves the folder, paths outside the workspace are refused', async ({ user }) => {
  const first = await createProject(user.api, 'lib-one');
  expect(first).toMatchObject({ name: 'lib-one', isDefault: false });
  // A folder without git is initialised.
  expect(existsSync(join(first.path, '.git'))).toBe(true);
  const again = await createProject(user.api, first.path);
  expect(again.id).toBe(first.id);
  expect((await mutate(user.api, 'project.create', { path: '/etc' })).status).toBe(403);
  expect((await mutate(user.api, 'project.create', { path: '../../..' })).status).toBe(403);

  expect((await mutate(user.api, 'project.unregister', { id: first.id })).data).toEqual({ id: first.id });
  expect((await query<ProjectSummary[]>(user.api, 'project.list')).data.map((p) => p.id)).toEqual(['default']);
  expect(existsSync(first.path)).toBe(true);
  for (const [path, input] of [
    ['project.unregister', { id: first.id }],
    ['project.setAutoCommit', { id: first.id, on: true }],
    ['project.relocate', { id: first.id, path: 'lib-one' }],
  ] as const) {
    expect((await mutate(user.api, path, input)).status, path).toBe(404);
  }
  expect((await query(user.api, 'project.commits', { id: first.id })).status).toBe(404);
  expect((await mutate(user.api, 'project.unregister', { id: 'default' })).status).toBe(400);
  const draft = await createSession(user.api, { id: 'draft' });
  expect((await mutate(user.api, 'project.setForSession', { sessionId: draft.id, projectId: first.id })).status).toBe(404);
});
