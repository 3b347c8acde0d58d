import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentTurn, git, openProjectStore, storesClosedAfterEach, writeFiles } from '../testing/project-repos.js';
import type { SessionStore } from '../session-store.js';
import { filesOf, treeOf } from '../testing/folder-snapshot.js';

/** Four turns in the project: each adds a file and rewrites the shared one. */
async function fourTurns(store: SessionStore, projectDir: string) {
  const ends = [];
  for (let n = 1; n <= 4; n++) ends.push((await agentTurn(store, 's', projectDir, { [`f${n}.txt`]: `file ${n}\n`, 'shared.txt': `after turn ${n}\n` })).end);
  return ends;
}

describe('forkAtTurn: a new session from a turn, with that turn\'s code in a worktree', () => {
  const stores = storesClosedAfterEach();

  it('the worktree holds turn 2\'s project commit byte for byte; a turn in the fork commits there, not in the original; delete removes the worktree', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const ends = await fourTurns(store, projectDir);
    const originalHead = git(projectDir, 'rev-parse', 'HEAD');

    const { session, fork } = await store.forkAtTurn('s', { turn: 2 });
    expect((await store.getSession(session.id)).projectId).toBe(project.id);
    expect(fork).toMatchObject({ of: 's', turn: 2, projectCommit: ends[1]!.projectCommit, projectFolder: projectDir });
    expect(fork.worktree).toBe(join(`${projectDir}.forks`, session.id));
    expect(filesOf(fork.worktree!)).toEqual(treeOf(projectDir, ends[1]!.projectCommit!));
    expect((await store.getBranch(session.id)).map((m) => m.content)).toEqual(['please write f1.txt, shared.txt', 'done', 'please write f2.txt, shared.txt', 'done']);
    expect((await store.getSession(session.id)).fork).toEqual(fork);

    const { end } = await agentTurn(store, session.id, fork.worktree!, { 'fork.txt': 'in the fork\n' });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(fork.worktree!, 'rev-parse', 'HEAD')).toBe(end.projectCommit);
    expect(git(projectDir, 'rev-parse', fork.branch!)).toBe(end.projectCommit);
    expect(git(projectDir, 'rev-parse', `${end.projectCommit}^`)).toBe(ends[1]!.projectCommit);
    expect(git(projectDir, 'rev-parse', 'HEAD')).toBe(originalHead);
    expect(existsSync(join(projectDir, 'fork.txt'))).toBe(false);

    await store.deleteSession(session.id);
    expect(existsSync(fork.worktree!)).toBe(false);
    expect(git(projectDir, 'worktree', 'list', '--porcelain')).not.toContain(fork.worktree!);
    // The fork's commits stay reachable on its branch.
    expect(git(projectDir, 'rev-parse', fork.branch!)).toBe(end.projectCommit);
  });

  it('forks at a message: the conversation up to it, the code of the turn that added it; a branch only when asked', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    const ends = await fourTurns(store, projectDir);
    const turn3 = (await store.listCommits('s')).commits.find((commit) => commit.turn === 3)!;
    const question = turn3.nodeIds[0]!;
    const { session, fork } = await store.forkAtTurn('s', { nodeId: question, code: 'branch' });
    expect(fork.worktree).toBeNull();
    expect(git(projectDir, 'rev-parse', fork.branch!)).toBe(ends[2]!.projectCommit);
    expect((await store.getBranch(session.id)).map((m) => m.id).at(-1)).toBe(question);
    expect(existsSync(`${projectDir}.forks`)).toBe(false);
  });

  it('bad input is refused with its code and writes nothing: a worktree inside the project, a used folder, an unknown turn', async () => {
    const { store, projectDir, project, workspace } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    await fourTurns(store, projectDir);
    writeFiles(workspace, { 'used/file.txt': 'taken\n' });
    const sessionsBefore = (await store.listSessions({ scope: 'all' })).rows.length;
    const branchesBefore = git(projectDir, 'branch', '--list');
    await expect(store.forkAtTurn('s', { turn: 2, worktree: join(projectDir, 'inside') })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.forkAtTurn('s', { turn: 2, worktree: join(projectDir, 'src') })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.forkAtTurn('s', { turn: 2, worktree: '/etc/elsewhere' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(store.forkAtTurn('s', { turn: 2, worktree: join(workspace, 'used') })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(store.forkAtTurn('s', { turn: 9 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.forkAtTurn('s', { turn: 2, nodeId: 'x' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect((await store.listSessions({ scope: 'all' })).rows.length).toBe(sessionsBefore);
    expect(git(projectDir, 'branch', '--list')).toBe(branchesBefore);
  });

  it('a fork whose worktree the user removed by hand is deleted all the same, and git forgets the worktree', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    await agentTurn(store, 's', projectDir, { 'a.txt': 'a\n' });
    const { session, fork } = await store.forkAtTurn('s', { turn: 1 });
    rmSync(fork.worktree!, { recursive: true, force: true });
    await expect(store.beginTurn(session.id)).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await store.deleteSession(session.id);
    expect(store.hasSession(session.id)).toBe(false);
    expect(git(projectDir, 'worktree', 'list', '--porcelain')).not.toContain(fork.worktree!);
  });

  it('a session in Home forks its conversation only', async () => {
    const { store } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 'h' });
    await store.appendMessage('h', { role: 'user', content: 'hi' });
    await store.appendMessage('h', { role: 'assistant', content: 'hello' });
    await store.finalizeTurn('h');
    const { session, fork } = await store.forkAtTurn('h', { turn: 1 });
    expect((await store.getSession(session.id)).projectId).toBe('default');
    expect(fork).toMatchObject({ of: 'h', turn: 1, projectCommit: null, branch: null, worktree: null });
    expect((await store.getBranch(session.id)).map((m) => m.content)).toEqual(['hi', 'hello']);
  });

  it('a copied answer keeps its words and model but not its usage: the original session paid for it (DESIGN §15)', async () => {
    const { store } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 'u' });
    await store.appendMessage('u', { role: 'user', content: 'hi' });
    await store.appendMessage('u', { role: 'assistant', content: 'hello', metadata: { model: 'm1', usage: { input: 10, output: 5, model: 'm1' } } });
    await store.finalizeTurn('u');
    const { session } = await store.forkAtTurn('u', { turn: 1 });
    const [, answer] = await store.getBranch(session.id);
    expect(answer!.metadata).toMatchObject({ model: 'm1' });
    expect(answer!.metadata['usage']).toBeUndefined();
    expect((await store.getBranch('u'))[1]!.metadata['usage']).toEqual({ input: 10, output: 5, model: 'm1' });
  });

  it('a fork of a fork: its worktree is kept out of the project itself and belongs to the project, so it outlives the first fork', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: project.id });
    await fourTurns(store, projectDir);
    const first = await store.forkAtTurn('s', { turn: 2 });
    await agentTurn(store, first.session.id, first.fork.worktree!, { 'fork.txt': 'in the fork\n' });
    await expect(store.forkAtTurn(first.session.id, { turn: 3, worktree: join(projectDir, 'nested') })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const second = await store.forkAtTurn(first.session.id, { turn: 3 });
    expect(second.fork).toMatchObject({ projectFolder: projectDir, worktree: join(`${projectDir}.forks`, second.session.id) });
    expect(readFileSync(join(second.fork.worktree!, 'fork.txt'), 'utf8')).toBe('in the fork\n');
    await store.deleteSession(first.session.id);
    expect(existsSync(first.fork.worktree!)).toBe(false);
    await store.deleteSession(second.session.id);
    expect(existsSync(second.fork.worktree!)).toBe(false);
    expect(git(projectDir, 'worktree', 'list', '--porcelain')).not.toContain('.forks');
  });
});
