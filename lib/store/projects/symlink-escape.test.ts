import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ForbiddenPathError } from '../errors.js';
import { agentTurn, git, makeRepo, openProjectStore, storesClosedAfterEach, tempDir, writeFiles } from '../testing/project-repos.js';

/**
 * DESIGN §2: every file operation resolves the real path at the moment of use. A link that leads
 * out of the project (a file or a folder), whether there at bind or swapped in afterwards, is
 * refused with a message naming it, and nothing is written outside.
 */

/** A folder outside every allowed root, with one file, and a snapshot of it to compare. */
function outsideFolder(): { dir: string; snapshot: () => string } {
  const dir = tempDir('em-outside-');
  writeFileSync(join(dir, 'secret.txt'), 'outside\n');
  const snapshot = () =>
    (readdirSync(dir, { recursive: true }) as string[])
      .sort()
      .map((p) => `${p}:${existsSync(join(dir, p)) && !p.endsWith('.git') ? safeRead(join(dir, p)) : ''}`)
      .join('\n');
  return { dir, snapshot };
}

function safeRead(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '<dir>';
  }
}

describe('links out of the project', () => {
  const stores = storesClosedAfterEach();

  it('at bind: a project path that is a link out, or a repository whose .git is one, is refused; nothing is created outside', async () => {
    const { store, workspace } = await openProjectStore();
    stores.push(store);
    const outside = outsideFolder();
    const before = outside.snapshot();
    symlinkSync(outside.dir, join(workspace, 'linked'));
    await expect(store.createProject('linked')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(store.createProject(join(workspace, 'linked'))).rejects.toThrow(/outside|allowed/);
    // A folder below the link is no way round.
    await expect(store.createProject('linked/sub')).rejects.toBeInstanceOf(ForbiddenPathError);
    expect(outside.snapshot()).toBe(before);
    expect(existsSync(join(outside.dir, '.git'))).toBe(false);

    const outsideRepo = makeRepo({ 'x.txt': 'x\n' }, tempDir('em-outside-repo-'));
    const project = join(workspace, 'dotgit-link');
    mkdirSync(project);
    writeFileSync(join(project, 'a.txt'), 'a\n');
    symlinkSync(join(outsideRepo, '.git'), join(project, '.git'));
    await expect(store.createProject(project)).rejects.toThrow(/outside the allowed roots/);
    const gitfile = join(workspace, 'gitfile');
    mkdirSync(gitfile);
    writeFileSync(join(gitfile, '.git'), `gitdir: ${join(outsideRepo, '.git')}\n`);
    await expect(store.createProject(gitfile)).rejects.toThrow(/outside the allowed roots/);
    expect(git(outsideRepo, 'status', '--porcelain')).toBe('');
  });

  it('a folder link inside the project: the agent cannot snapshot, commit or undo through it', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    const outside = outsideFolder();
    const before = outside.snapshot();
    symlinkSync(outside.dir, join(projectDir, 'out'));
    symlinkSync(join(outside.dir, 'secret.txt'), join(projectDir, 'leak.txt'));
    git(projectDir, 'add', 'out', 'leak.txt');
    git(projectDir, 'commit', '-q', '-m', 'user: links');
    await store.createSession({ id: 'links', projectId: project.id });
    await store.beginTurn('links');
    await expect(store.snapshotBeforeEdit('links', 'out/secret.txt')).rejects.toThrow(/outside the project folder/);
    await expect(store.snapshotBeforeEdit('links', 'leak.txt')).rejects.toThrow(/outside the project folder/);
    await store.appendMessage('links', { role: 'user', content: 'write through the link' });
    await store.appendMessage('links', { role: 'assistant', content: 'tried' });
    const end = await store.finalizeTurn('links', { writtenPaths: ['out/secret.txt'] });
    expect(end.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(end.projectCommit).toBeNull();
    expect(end.projectCommitSkipped).toMatchObject({ reason: 'unsafe_path', message: expect.stringContaining('symbolic link') });
    expect(outside.snapshot()).toBe(before);
  });

  it('a file swapped for a link out after the snapshot: the turn still ends and commits; undo refuses and writes nothing outside', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    const outside = outsideFolder();
    await store.createSession({ id: 'swap', projectId: project.id });
    await store.beginTurn('swap');
    await store.appendMessage('swap', { role: 'user', content: 'edit the readme' });
    await store.snapshotBeforeEdit('swap', 'README.md');
    writeFiles(projectDir, { 'README.md': 'agent\n' });
    // Swapped between the agent's write and the end of the turn.
    rmSync(join(projectDir, 'README.md'));
    symlinkSync(join(outside.dir, 'secret.txt'), join(projectDir, 'README.md'));
    await store.appendMessage('swap', { role: 'assistant', content: 'done' });
    const end = await store.finalizeTurn('swap', { writtenPaths: ['README.md'] });
    expect(end.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(end.projectCommit).toBeNull();
    expect(end.projectCommitSkipped).toMatchObject({ reason: 'unsafe_path', message: expect.stringMatching(/README\.md is now a symbolic link/) });
    expect((await store.getSession('swap')).status).toBe('idle');
    const before = outside.snapshot();
    const undo = store.undoTurn('swap', 1);
    await expect(undo).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(undo).rejects.toThrow(/README\.md.*outside the project folder|symbolic link|changed/);
    expect(outside.snapshot()).toBe(before);
    expect(readFileSync(join(outside.dir, 'secret.txt'), 'utf8')).toBe('outside\n');
  });

  it('a folder swapped for a link out after the turn: undo and redo refuse, nothing is written outside', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    const outside = outsideFolder();
    await store.createSession({ id: 'dir', projectId: project.id });
    // Not committed (auto-commit off): undo rewrites the files itself.
    await store.setProjectAutoCommit(project.id, false);
    await agentTurn(store, 'dir', projectDir, { 'src/app.ts': 'export const agent = 1;\n' });
    mkdirSync(join(outside.dir, 'src'));
    writeFileSync(join(outside.dir, 'src', 'app.ts'), 'export const agent = 1;\n');
    const before = outside.snapshot();
    renameSync(join(projectDir, 'src'), join(projectDir, 'src-moved'));
    symlinkSync(join(outside.dir, 'src'), join(projectDir, 'src'));
    const undo = store.undoTurn('dir', 1);
    await expect(undo).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(undo).rejects.toThrow(/src\/app\.ts.*outside the project folder/);
    expect(outside.snapshot()).toBe(before);
  });

  it('an agent-committed turn whose folder became a link out: undo refuses (git sees the change), nothing outside moves', async () => {
    const { store, projectDir, project } = await openProjectStore();
    stores.push(store);
    const outside = outsideFolder();
    await store.createSession({ id: 'cdir', projectId: project.id });
    const { end } = await agentTurn(store, 'cdir', projectDir, { 'src/app.ts': 'export const agent = 2;\n' });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    mkdirSync(join(outside.dir, 'src'));
    writeFileSync(join(outside.dir, 'src', 'app.ts'), 'export const agent = 2;\n');
    const before = outside.snapshot();
    renameSync(join(projectDir, 'src'), join(projectDir, 'src-moved'));
    symlinkSync(join(outside.dir, 'src'), join(projectDir, 'src'));
    await expect(store.undoTurn('cdir', 1)).rejects.toThrow(/uncommitted changes|outside the project folder/);
    expect(outside.snapshot()).toBe(before);
    expect(git(projectDir, 'rev-parse', 'HEAD')).toBe(end.projectCommit);
  });

  it('the project folder itself swapped for a link out after bind: turns, undo and the commit list refuse it', async () => {
    const { store, workspace, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 'root', projectId: project.id });
    const { end } = await agentTurn(store, 'root', projectDir, { 'README.md': 'agent\n' });
    const outsideRepo = makeRepo({ 'README.md': 'agent\n' }, tempDir('em-outside-repo-'));
    const outsideHead = git(outsideRepo, 'rev-parse', 'HEAD');
    renameSync(projectDir, join(workspace, 'app-moved'));
    symlinkSync(outsideRepo, projectDir);
    await expect(store.beginTurn('root')).rejects.toThrow(/outside the allowed roots/);
    await expect(store.undoTurn('root', 1)).rejects.toThrow(/outside the allowed roots/);
    await expect(store.projectCommitDiff(project.id, end.projectCommit!)).rejects.toThrow(/outside the allowed roots/);
    expect(git(outsideRepo, 'rev-parse', 'HEAD')).toBe(outsideHead);
    expect(git(outsideRepo, 'status', '--porcelain')).toBe('');
  });

  it('the project folder swapped for a link out during a turn: the turn ends without touching the other repository', async () => {
    const { store, workspace, projectDir, project } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 'mid', projectId: project.id });
    await store.beginTurn('mid');
    await store.appendMessage('mid', { role: 'user', content: 'edit' });
    await store.snapshotBeforeEdit('mid', 'README.md');
    writeFiles(projectDir, { 'README.md': 'agent\n' });
    // A folder outside whose .git file points back at the project's own git directory (inside
    // the roots): only the check of the folder itself keeps its files out of the commit.
    const moved = join(workspace, 'app-moved');
    renameSync(projectDir, moved);
    const outside = outsideFolder();
    writeFileSync(join(outside.dir, 'README.md'), 'agent\n');
    writeFileSync(join(outside.dir, '.git'), `gitdir: ${join(moved, '.git')}\n`);
    const before = outside.snapshot();
    const head = git(moved, 'rev-parse', 'HEAD');
    symlinkSync(outside.dir, projectDir);
    await store.appendMessage('mid', { role: 'assistant', content: 'done' });
    const end = await store.finalizeTurn('mid', { writtenPaths: ['README.md'] });
    expect(end.sessionCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(end.projectCommit).toBeNull();
    expect(end.projectCommitSkipped?.message).toMatch(/outside the allowed roots/);
    expect(git(moved, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(moved, 'ls-files')).not.toContain('secret.txt');
    expect(outside.snapshot()).toBe(before);
  });
});
