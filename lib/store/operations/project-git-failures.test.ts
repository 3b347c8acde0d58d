import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { InvalidInputError, PreconditionError } from '../errors.js';
import { cleanupTempDirs, git, head, makeRepo, tempDir, writeFiles } from '../testing/project-repos.js';

/**
 * A project repository git cannot use is a reason (not_a_repo, unsafe_path, git_error) or a
 * clear 4xx, never an internal error, and a finalize never leaves the session running.
 */

const stores: SessionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  cleanupTempDirs();
});

async function setup(files: Record<string, string> = { 'README.md': 'hello\n', 'src/app.ts': 'export {}\n' }) {
  const workspace = tempDir('em-ws-');
  mkdirSync(join(workspace, 'app'));
  const projectDir = makeRepo(files, join(workspace, 'app'));
  const store = await SessionStore.open({ stateDir: tempDir('em-state-'), workspaceRoot: workspace });
  stores.push(store);
  const project = await store.createProject(projectDir, 'App');
  await store.createSession({ id: 's', projectId: project.id });
  return { store, workspace, projectDir, project };
}

async function turnWriting(store: SessionStore, writtenPaths: string[]) {
  await store.appendMessage('s', { role: 'user', content: 'write' });
  await store.appendMessage('s', { role: 'assistant', content: 'done' });
  return store.finalizeTurn('s', { writtenPaths, model: 'm' });
}

describe('project git failures', () => {
  it('an empty .git: create is a 412, a repo emptied later gives not_a_repo and 412 for its commits', async () => {
    const { store, workspace, projectDir, project } = await setup();
    mkdirSync(join(workspace, 'broken', '.git'), { recursive: true });
    await expect(store.createProject(join(workspace, 'broken'))).rejects.toThrow(PreconditionError);
    await expect(store.createProject(join(workspace, 'broken'))).rejects.toThrow(/not a usable git repository/);

    rmSync(join(projectDir, '.git'), { recursive: true });
    mkdirSync(join(projectDir, '.git'));
    expect(await store.beginTurn('s')).toMatchObject({ projectClean: false });
    writeFiles(projectDir, { 'a.txt': 'a\n' });
    const end = await turnWriting(store, ['a.txt']);
    expect(end.projectCommit).toBeNull();
    expect(end.projectCommitSkipped).toMatchObject({ reason: 'not_a_repo', message: expect.stringMatching(/not a usable git repository/) });
    expect((await store.getSession('s')).status).toBe('idle');
    await expect(store.projectCommits(project.id)).rejects.toThrow(PreconditionError);
  });

  it('a written path through a committed symlinked directory is unsafe_path, and the session is idle', async () => {
    const { store, projectDir } = await setup();
    symlinkSync('src', join(projectDir, 'link'));
    git(projectDir, 'add', 'link');
    git(projectDir, 'commit', '-q', '-m', 'user: link');
    const before = head(projectDir);
    await store.beginTurn('s');
    writeFiles(projectDir, { 'src/new.ts': 'x\n' });
    const end = await turnWriting(store, ['link/new.ts']);
    expect(end.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(end.projectCommitSkipped).toMatchObject({ reason: 'unsafe_path', message: expect.stringContaining('link') });
    expect(head(projectDir)).toBe(before);
    expect((await store.getSession('s')).status).toBe('idle');
  });

  it('git failing during the commit (a ref lock held) is git_error, and the session is idle', async () => {
    const { store, projectDir } = await setup();
    await store.beginTurn('s');
    writeFiles(projectDir, { 'a.txt': 'a\n' });
    writeFileSync(join(projectDir, '.git', 'refs', 'heads', 'main.lock'), '');
    const end = await turnWriting(store, ['a.txt']);
    expect(end.projectCommit).toBeNull();
    expect(end.projectCommitSkipped?.reason).toBe('git_error');
    expect((await store.getSession('s')).status).toBe('idle');
  });

  it('a written path that leaves the project is a 400 before anything changes; the turn still runs', async () => {
    const { store } = await setup();
    await store.beginTurn('s');
    await store.appendMessage('s', { role: 'user', content: 'write' });
    await expect(store.finalizeTurn('s', { writtenPaths: ['../outside'] })).rejects.toThrow();
    await expect(store.finalizeTurn('s', { writtenPaths: ['a\0b'] })).rejects.toThrow(InvalidInputError);
    expect((await store.getSession('s')).status).toBe('running');
    expect((await store.finalizeTurn('s', { writtenPaths: [] })).sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    expect((await store.getSession('s')).status).toBe('idle');
  });
});
