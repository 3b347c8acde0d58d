import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { InvalidInputError, NotFoundError } from '../errors.js';
import { git, makeRepo, tempDir, writeFiles, storesClosedAfterEach } from '../testing/project-repos.js';
import { firstLineOf } from '../text.js';

async function setup() {
  const stateDir = tempDir('em-state-');
  const workspace = tempDir('em-ws-');
  mkdirSync(join(workspace, 'app'));
  const projectDir = makeRepo({ 'README.md': 'hello\n' }, join(workspace, 'app'));
  const store = await SessionStore.open({ stateDir, workspaceRoot: workspace });
  const project = await store.createProject(projectDir, 'App');
  return { store, stateDir, workspace, projectDir, project };
}

/** One agent turn: a user line, the agent's file writes, a reply. */
async function turn(store: SessionStore, id: string, question: string, files: Record<string, string>, projectDir: string | null) {
  await store.beginTurn(id);
  const user = await store.appendMessage(id, { role: 'user', content: question });
  if (projectDir) writeFiles(projectDir, files);
  const reply = await store.appendMessage(id, { role: 'assistant', content: `answer to ${question}\nsecond line` });
  const end = await store.finalizeTurn(id, { writtenPaths: Object.keys(files), model: 'm' });
  return { user, reply, end };
}

describe('the timeline of a session', () => {
  const stores = storesClosedAfterEach();

  it('marks an edited and resent question with the message it forks from', async () => {
    const { store } = await setup();
    stores.push(store);
    await store.createSession({ id: 'e' });
    const first = await turn(store, 'e', 'first question', {}, null);
    // Edit and resend: a new user message beside the first (same parent: none).
    await store.beginTurn('e');
    const edited = await store.appendMessage('e', { role: 'user', content: 'edited question', parentId: null });
    await store.setHead('e', edited.id);
    await store.appendMessage('e', { role: 'assistant', content: 'answer' });
    await store.finalizeTurn('e', { model: 'm' });
    const [second, one] = (await store.listTurns('e')).commits;
    expect(second!.nodes.find((node) => node.id === edited.id)!.editOf).toBe(first.user.id);
    expect(one!.nodes.every((node) => node.editOf === null)).toBe(true);
  });

  it("an agent's tool round-trip is named for the prompt it continues, a call-only message by its calls, and the prompts counted", async () => {
    const { store } = await setup();
    stores.push(store);
    await store.createSession({ id: 'agent' });
    await store.appendMessage('agent', { role: 'user', content: 'please write a file\nnamed notes.txt' });
    const call = await store.appendMessage('agent', { role: 'assistant', content: '', metadata: { tool_calls: [{ id: 'c1', name: 'Write', arguments: '{"file_path":"notes.txt"}' }] } });
    await store.finalizeTurn('agent');
    await store.appendMessage('agent', { role: 'tool', content: 'written', calledBy: call.id, name: 'Write', metadata: { tool_call_id: 'c1' } });
    await store.appendMessage('agent', { role: 'assistant', content: 'Done.', parentId: call.id });
    await store.finalizeTurn('agent');
    const page = await store.listTurns('agent');
    expect(page.prompts).toBe(1);
    const [second, first] = page.commits;
    expect(first!.message).toBe('turn: please write a file');
    expect(second!.message).toBe('turn: tool results · please write a file');
    expect(first!.nodes.map((node) => [node.role, node.firstLine, node.toolCalls])).toEqual([['user', 'please write a file', []], ['assistant', '', ['Write']]]);
    // Both say why there is no project commit: the session has no project folder.
    expect(page.commits.map((commit) => commit.projectCommitSkipped)).toEqual(['no_project', 'no_project']);
  });

  it('says why a project session made no project commit: nothing changed, or no turn.begin watched the project', async () => {
    const { store, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 'p', projectId: project.id });
    await turn(store, 'p', 'just a question', {}, null);
    await store.appendMessage('p', { role: 'user', content: 'recorded without a begin' });
    await store.finalizeTurn('p');
    const reasons = (await store.listTurns('p')).commits.map((commit) => commit.projectCommitSkipped);
    expect(reasons).toEqual(['no_begin', 'nothing_to_commit']);
  });

  it('lists turns without session init, each with its nodes, project commit and files, newest first', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const t1 = await turn(store, 's', 'write a.txt', { 'a.txt': 'a\n' }, projectDir);
    const t2 = await turn(store, 's', 'write b.txt\nplease', { 'b.txt': 'b\n' }, projectDir);
    const page = await store.listTurns('s');
    expect(page.projectId).toBe(project.id);
    expect(page.nextCursor).toBeNull();
    expect(page.commits.map((c) => c.turn)).toEqual([2, 1]);
    const [second, first] = page.commits;
    expect(second!.nodes).toEqual([
      { id: t2.user.id, role: 'user', name: '', firstLine: 'write b.txt', toolCalls: [], editOf: null },
      { id: t2.reply.id, role: 'assistant', name: '', firstLine: 'answer to write b.txt', toolCalls: [], editOf: null },
    ]);
    expect(first!.projectCommit).toBe(t1.end.projectCommit);
    expect(first!.projectCommitSkipped).toBeNull();
    expect(first!.projectCommitInfo).toEqual({
      sha: t1.end.projectCommit,
      message: '[agent s] turn 1: write a.txt',
      author: 'agent (m via Entity Memory)',
      createdAt: expect.any(Number),
      files: [{ path: 'a.txt', status: 'added' }],
    });
    // Provenance the other way: the project commit names the session turn that made it.
    const commits = await store.projectCommits(project.id);
    expect(commits.map((c) => [c.sha, c.sessionId, c.turn])).toEqual([
      [t2.end.projectCommit, 's', 2],
      [t1.end.projectCommit, 's', 1],
    ]);
    const patch = await store.projectCommitDiff(project.id, t2.end.projectCommit!);
    expect(patch.files.map((f) => [f.path, f.status])).toEqual([['b.txt', 'added']]);
    expect(patch.files[0]!.patch).toContain('+b');
    await expect(store.projectCommitDiff(project.id, 'f'.repeat(40))).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.projectCommitDiff(project.id, 'HEAD')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.projectCommitDiff('default', t2.end.projectCommit!)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('persists why a turn made no project commit, and pages never end on session init alone', async () => {
    const { store, projectDir, project } = await setup();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    writeFileSync(join(projectDir, 'README.md'), 'the person was editing\n');
    await turn(store, 's', 'edit README', { 'README.md': 'agent\n' }, projectDir);
    await store.setProjectAutoCommit(project.id, false);
    git(projectDir, 'checkout', '--', 'README.md');
    await turn(store, 's', 'write c.txt', { 'c.txt': 'c\n' }, projectDir);
    rmSync(join(projectDir, '.git'), { recursive: true });
    await store.setProjectAutoCommit(project.id, true);
    await turn(store, 's', 'write d.txt', { 'd.txt': 'd\n' }, projectDir);
    const first = await store.listTurns('s', { limit: 2 });
    expect(first.commits.map((c) => [c.turn, c.projectCommitSkipped])).toEqual([[3, 'not_a_repo'], [2, 'disabled']]);
    const second = await store.listTurns('s', { limit: 2, cursor: first.nextCursor });
    expect(second.commits.map((c) => [c.turn, c.projectCommitSkipped])).toEqual([[1, 'dirty_tree']]);
    expect(second.nextCursor).toBeNull();
    // A page that ends at turn 1 has nothing older to offer.
    const exact = await store.listTurns('s', { limit: 3 });
    expect(exact.nextCursor).toBeNull();
  });

  it('marks a retry fork on the commit that held the retried reply', async () => {
    const { store } = await setup();
    stores.push(store);
    await store.createSession({ id: 'r' });
    const t1 = await turn(store, 'r', 'first', {}, null);
    await turn(store, 'r', 'second', {}, null);
    await store.retry('r', t1.reply.id);
    await store.appendMessage('r', { role: 'assistant', content: 'another answer', parentId: t1.user.id });
    await store.finalizeTurn('r');
    const { commits } = await store.listTurns('r');
    expect(commits.map((c) => [c.turn, c.retryForks])).toEqual([[3, []], [2, []], [1, [t1.reply.id]]]);
  });

  it('reads the session at a turn from git: later messages, branches and file damage do not show', async () => {
    const { store, stateDir } = await setup();
    stores.push(store);
    await store.createSession({ id: 'a' });
    const shas: string[] = [];
    const turns: Awaited<ReturnType<typeof turn>>[] = [];
    for (let i = 1; i <= 4; i++) {
      const t = await turn(store, 'a', `q${i}`, {}, null);
      turns.push(t);
      shas.push(t.end.sessionCommit!);
    }
    // A new branch from turn 1's reply, appended later.
    await store.appendMessage('a', { role: 'user', content: 'fork', parentId: turns[0]!.reply.id });
    await store.finalizeTurn('a');
    const at2 = await store.branchAt('a', shas[1]!);
    expect(at2.turn).toBe(2);
    expect(at2.message).toBe('turn: q2');
    expect(at2.headId).toBe(turns[1]!.reply.id);
    expect(at2.messages.map((m) => m.content)).toEqual(['q1', 'answer to q1\nsecond line', 'q2', 'answer to q2\nsecond line']);
    // The fork did not exist then: turn 1's reply has one child, q2's siblings are itself.
    expect(at2.messages[2]!.siblings).toEqual([turns[1]!.user.id]);
    expect(at2.previous).toEqual({ sha: shas[0], turn: 1 });
    expect(at2.next).toEqual({ sha: shas[2], turn: 3 });
    const at1 = await store.branchAt('a', shas[0]!);
    expect(at1.previous).toBeNull();
    // Today's file of q2 is damaged: the commit still has it.
    const dir = join(stateDir, 'sessions', 'a', 'history');
    const q2File = (await import('node:fs')).readdirSync(dir).find((name) => name.includes(turns[1]!.user.id))!;
    renameSync(join(dir, q2File), join(dir, `${q2File}.gone`));
    const reopened = await SessionStore.open({ stateDir, workspaceRoot: tempDir('em-ws2-') });
    stores.push(reopened);
    expect((await reopened.branchAt('a', shas[1]!)).messages.map((m) => m.content)).toEqual(['q1', 'answer to q1\nsecond line', 'q2', 'answer to q2\nsecond line']);
  });

  it('reads the title a turn commit holds: a rename after it is not in it (issue 27 item 10)', async () => {
    const { store } = await setup();
    stores.push(store);
    await store.createSession({ id: 't', title: 'First title' });
    const one = await turn(store, 't', 'q1', {}, null);
    await store.updateSession('t', { title: 'Renamed after turn 1' });
    const two = await turn(store, 't', 'q2', {}, null);
    await store.updateSession('t', { title: 'Renamed after turn 2' });
    expect(store.getRow('t')?.title).toBe('Renamed after turn 2');
    expect((await store.branchAt('t', one.end.sessionCommit!)).title).toBe('First title');
    expect((await store.branchAt('t', two.end.sessionCommit!)).title).toBe('Renamed after turn 1');
  });

  it('answers NOT_FOUND for a sha that is not on this session\'s line of turns', async () => {
    const { store } = await setup();
    stores.push(store);
    await store.createSession({ id: 'x' });
    await store.createSession({ id: 'y' });
    await turn(store, 'x', 'in x', {}, null);
    const y = await turn(store, 'y', 'in y', {}, null);
    await expect(store.branchAt('x', y.end.sessionCommit!)).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.branchAt('x', '0'.repeat(40))).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.branchAt('x', 'HEAD')).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('gives the conversation DAG with its tips for the branch graph', async () => {
    const { store } = await setup();
    stores.push(store);
    await store.createSession({ id: 'g' });
    const t1 = await turn(store, 'g', 'root question', {}, null);
    await store.appendMessage('g', { id: 'alt', role: 'assistant', content: 'alt reply', parentId: t1.user.id });
    const dag = await store.conversationDag('g');
    expect(dag.nodes.map((n) => [n.id, n.role, n.parentId])).toEqual([
      [t1.user.id, 'user', null],
      [t1.reply.id, 'assistant', t1.user.id],
      ['alt', 'assistant', t1.user.id],
    ]);
    // A reply beside the head does not move it.
    expect(dag.headId).toBe(t1.reply.id);
    expect(dag.tips.map((t) => [t.headId, t.current])).toEqual([[t1.reply.id, true], ['alt', false]]);
  });

  it('cuts first lines at 120 code points and skips blank lines', () => {
    expect(firstLineOf('\n\n  hello  \nworld')).toBe('hello');
    expect(firstLineOf('é'.repeat(130))).toBe(`${'é'.repeat(120)}…`);
    expect(firstLineOf('')).toBe('');
  });
});
