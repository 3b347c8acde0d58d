import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenPathError, InvalidInputError, NotFoundError, PreconditionError } from '../errors.js';
import { DEFAULT_PROJECT_ID } from '../ids.js';
import { ProjectStore } from './project-store.js';
import { slugify } from './project-names.js';
import { cleanupTempDirs, git, head, makeRepo, tempDir, writeFiles } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

async function setup(extraRoots: string[] = []) {
  const stateDir = tempDir('op-state-');
  const workspace = join(tempDir('op-ws-'), 'workspace');
  const store = await ProjectStore.open({ stateDir, workspaceRoot: workspace, allowedRoots: [workspace, ...extraRoots] });
  return { stateDir, workspace, store, registryPath: join(stateDir, 'projects', 'projects.json') };
}

function readRegistry(path: string): Record<string, Record<string, unknown>> {
  return JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, unknown>>;
}

describe('ProjectStore: the default project', () => {
  it('always lists "Home" at the workspace root first, without writing anything', async () => {
    const { store, workspace, registryPath } = await setup();
    expect(await store.list()).toEqual([
      { id: 'default', name: 'Home', path: workspace, isDefault: true, pathMissing: false, sessionCount: 0, autoCommit: false },
    ]);
    expect(existsSync(registryPath)).toBe(false);
    expect(store.nameOf('default')).toBe('Home');
    expect(await store.workdirState('default')).toEqual({ state: 'ok', path: workspace });
  });

  it('cannot be relocated, unregistered or switched to auto-commit', async () => {
    const { store, workspace } = await setup();
    mkdirSync(join(workspace, 'x'));
    await expect(store.relocate('default', 'x')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.unregister('default')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.setAutoCommit('default', true)).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('resolving the workspace root itself gives the default project', async () => {
    const { store, workspace } = await setup();
    const project = await store.resolve(workspace);
    expect(project.id).toBe(DEFAULT_PROJECT_ID);
    expect(existsSync(join(workspace, '.git'))).toBe(false);
  });
});

describe('ProjectStore.resolve', () => {
  it('initialises a plain folder with a baseline commit and registers it with a stable id', async () => {
    const { store, workspace, registryPath } = await setup();
    writeFiles(join(workspace, 'My App!'), { 'index.js': 'console.log(1)\n' });
    const project = await store.resolve('My App!');
    expect(project.id).toMatch(/^my-app-[0-9a-f]{6}$/);
    expect(project).toMatchObject({ name: 'My App!', path: join(workspace, 'My App!'), isDefault: false, autoCommit: true, created: true });
    const dir = join(workspace, 'My App!');
    expect(git(dir, 'log', '--format=%an <%ae>|%s')).toBe('Entity Memory <openprogram@local>|openprogram: baseline (pre-existing files)');
    expect(git(dir, 'status', '--porcelain')).toBe('');

    const again = await store.resolve(dir, 'another name');
    expect(again).toMatchObject({ id: project.id, name: 'My App!', created: false });
    const onDisk = readRegistry(registryPath)[project.id];
    expect(onDisk).toMatchObject({ id: project.id, name: 'My App!', path: dir, is_default: false, session_ids: [], status: 'active', auto_commit: true });
    expect(typeof onDisk?.created_at).toBe('number');
  });

  it('reuses an existing repository untouched', async () => {
    const { store, workspace } = await setup();
    const dir = join(workspace, 'repo');
    mkdirSync(dir);
    makeRepo({ 'a.txt': 'a\n' }, dir);
    writeFileSync(join(dir, 'a.txt'), 'uncommitted\n');
    const before = head(dir);
    const project = await store.resolve(dir, 'Repo');
    expect(project.name).toBe('Repo');
    expect(head(dir)).toBe(before);
    expect(git(dir, 'status', '--porcelain')).toBe(' M a.txt');
  });

  it('gives the same id for the same real path reached through a symlink', async () => {
    const { store, workspace } = await setup();
    mkdirSync(join(workspace, 'real'));
    symlinkSync(join(workspace, 'real'), join(workspace, 'link'));
    const a = await store.resolve('real');
    const b = await store.resolve('link');
    expect(b.id).toBe(a.id);
    expect(b.path).toBe(join(workspace, 'real'));
  });

  it('refuses to git init a folder with dependency folders that are not ignored', async () => {
    const { store, workspace, registryPath } = await setup();
    const dir = join(workspace, 'node-app');
    writeFiles(dir, { 'package.json': '{}', 'node_modules/x/index.js': '', 'dist/out.js': '' });
    const error = await store.resolve(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionError);
    expect((error as Error).message).toMatch(/node_modules, dist/);
    expect(existsSync(join(dir, '.git'))).toBe(false);
    expect(existsSync(registryPath)).toBe(false);

    writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist\n');
    const project = await store.resolve(dir);
    expect(project.created).toBe(true);
    expect(git(dir, 'ls-files')).toBe('.gitignore\npackage.json');
  });

  it('creates a missing folder inside the roots, refuses anything outside them', async () => {
    const { store, workspace } = await setup();
    const project = await store.resolve('new/project');
    expect(project.path).toBe(join(workspace, 'new', 'project'));
    expect(existsSync(join(workspace, 'new', 'project', '.git'))).toBe(true);

    const outside = tempDir();
    const error = await store.resolve(outside).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenPathError);
    expect((error as Error).message).toContain(workspace);
    symlinkSync(outside, join(workspace, 'escape'));
    await expect(store.resolve('escape')).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(store.resolve('escape/sub')).rejects.toBeInstanceOf(ForbiddenPathError);
    expect(existsSync(join(outside, 'sub'))).toBe(false);
  });

  it('refuses a repository whose config can run commands, and registers nothing', async () => {
    const { store, workspace, registryPath } = await setup();
    const dir = join(workspace, 'evil');
    mkdirSync(dir);
    makeRepo({ 'a.txt': 'a' }, dir);
    git(dir, 'config', 'filter.x.clean', 'touch /tmp/pwned');
    await expect(store.resolve(dir)).rejects.toThrow(/filter\.x\.clean/);
    expect(existsSync(registryPath)).toBe(false);
  });

  it('validates the name', async () => {
    const { store, workspace } = await setup();
    mkdirSync(join(workspace, 'p'));
    await expect(store.resolve('p', '   ')).rejects.toBeInstanceOf(InvalidInputError);
    await expect(store.resolve('p', 'a\nb')).rejects.toBeInstanceOf(InvalidInputError);
    expect(slugify('Ünïcödé Prøject 2')).toBe('unicode-pr-ject-2');
    expect(slugify('日本語')).toBe('project');
  });
});

describe('ProjectStore registry bookkeeping', () => {
  it('keeps unknown keys and entries it cannot use, in a registry written by OpenProgram', async () => {
    const { store, workspace, registryPath, stateDir } = await setup();
    const dir = join(workspace, 'op');
    mkdirSync(dir);
    makeRepo({ 'a.txt': 'a' }, dir);
    mkdirSync(join(stateDir, 'projects'), { recursive: true });
    writeFileSync(registryPath, JSON.stringify({
      proj_1234abcd: { id: 'proj_1234abcd', name: 'op', path: dir, is_default: false, session_ids: ['s1'], status: 'active', created_at: 1.5, icon: '🚀', hidden: false },
      'bad id!': { id: 'bad id!', name: 'x', path: dir },
      default: { id: 'default', name: 'fzkuji', path: '/home/fzkuji', is_default: true, session_ids: [], custom_name: false },
    }));
    const list = await store.list();
    expect(list.map((p) => [p.id, p.name, p.sessionCount, p.autoCommit])).toEqual([
      ['default', 'Home', 0, false],
      ['proj_1234abcd', 'op', 1, true],
    ]);
    await store.addSession('proj_1234abcd', 's2');
    const disk = readRegistry(registryPath);
    expect(disk.proj_1234abcd).toMatchObject({ icon: '🚀', hidden: false, session_ids: ['s1', 's2'] });
    expect(disk['bad id!']).toEqual({ id: 'bad id!', name: 'x', path: dir });
    expect((await store.get('proj_1234abcd')).createdAt).toBe(1500);
  });

  it('adds and removes sessions; a session belongs to one project only', async () => {
    const { store, workspace } = await setup();
    mkdirSync(join(workspace, 'a'));
    mkdirSync(join(workspace, 'b'));
    const a = await store.resolve('a');
    const b = await store.resolve('b');
    await store.addSession(a.id, 'sess1');
    await store.addSession(a.id, 'sess1');
    expect((await store.get(a.id)).sessionIds).toEqual(['sess1']);
    await store.addSession(b.id, 'sess1');
    expect((await store.get(a.id)).sessionIds).toEqual([]);
    expect((await store.get(b.id)).sessionIds).toEqual(['sess1']);
    expect(store.projectOfSession('sess1')).toBe(b.id);
    await store.addSession('default', 'sess2');
    expect((await store.list())[0]?.sessionCount).toBe(1);
    expect(await store.removeSession(b.id, 'sess1')).toBe(true);
    expect(await store.removeSession(b.id, 'sess1')).toBe(false);
    await store.forgetSession('sess2');
    expect((await store.list())[0]?.sessionCount).toBe(0);
    await expect(store.addSession('nope', 'sess1')).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.addSession(a.id, '../x')).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('persists across instances and picks up another process\'s writes', async () => {
    const { store, workspace, stateDir } = await setup();
    mkdirSync(join(workspace, 'p'));
    const p = await store.resolve('p');
    const other = new ProjectStore({ stateDir, workspaceRoot: workspace });
    expect((await other.get(p.id)).name).toBe('p');
    await other.setAutoCommit(p.id, false);
    expect((await store.get(p.id)).autoCommit).toBe(false);
  });

  it('sets aside an unreadable registry instead of overwriting it', async () => {
    const { workspace, stateDir, registryPath } = await setup();
    mkdirSync(join(stateDir, 'projects'), { recursive: true });
    writeFileSync(registryPath, '{not json');
    const store = new ProjectStore({ stateDir, workspaceRoot: workspace });
    expect((await store.list()).map((p) => p.id)).toEqual(['default']);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(join(stateDir, 'projects')).some((n) => n.startsWith('projects.json.corrupt-'))).toBe(true);
  });

  it('shows an unregistered project by its id and keeps its git history', async () => {
    const { store, workspace } = await setup();
    writeFiles(join(workspace, 'gone'), { 'a.txt': 'a' });
    const p = await store.resolve('gone');
    await store.addSession(p.id, 'sess1');
    const removed = await store.unregister(p.id);
    expect(removed).toMatchObject({ id: p.id, sessionIds: ['sess1'] });
    expect(store.nameOf(p.id)).toBe(p.id);
    expect(store.has(p.id)).toBe(false);
    expect(git(join(workspace, 'gone'), 'rev-list', '--count', 'HEAD')).toBe('1');
    await expect(store.get(p.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.unregister(p.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('ProjectStore: missing folders and relocation', () => {
  it('reports a moved folder as missing (never the default) and repairs it keeping the id', async () => {
    const { store, workspace } = await setup();
    writeFiles(join(workspace, 'old'), { 'a.txt': 'a' });
    const p = await store.resolve('old');
    await store.addSession(p.id, 'sess1');
    renameSync(join(workspace, 'old'), join(workspace, 'new'));

    expect(await store.workdirState(p.id)).toEqual({ state: 'missing', path: join(workspace, 'old') });
    expect((await store.list()).find((x) => x.id === p.id)?.pathMissing).toBe(true);

    const moved = await store.relocate(p.id, 'new');
    expect(moved).toEqual({ oldPath: join(workspace, 'old'), path: join(workspace, 'new') });
    expect(await store.workdirState(p.id)).toEqual({ state: 'ok', path: join(workspace, 'new') });
    expect(await store.get(p.id)).toMatchObject({ id: p.id, sessionIds: ['sess1'], pathMissing: false });
  });

  it('refuses a relocation that is not a repair or goes somewhere it should not', async () => {
    const { store, workspace } = await setup();
    writeFiles(join(workspace, 'a'), { 'a.txt': 'a' });
    writeFiles(join(workspace, 'b'), { 'b.txt': 'b' });
    mkdirSync(join(workspace, 'c'));
    const a = await store.resolve('a');
    const b = await store.resolve('b');
    await expect(store.relocate(a.id, 'c')).rejects.toThrow(/still exists/);
    renameSync(join(workspace, 'a'), join(workspace, 'a2'));
    await expect(store.relocate(a.id, 'b')).rejects.toBeInstanceOf(ConflictError);
    await expect(store.relocate(a.id, workspace)).rejects.toBeInstanceOf(ConflictError);
    await expect(store.relocate(a.id, 'does-not-exist')).rejects.toBeInstanceOf(PreconditionError);
    await expect(store.relocate(a.id, tempDir())).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(store.relocate('unknown-project', 'a2')).rejects.toBeInstanceOf(NotFoundError);
    expect((await store.get(b.id)).path).toBe(join(workspace, 'b'));
    expect(await store.workdirState(a.id)).toMatchObject({ state: 'missing' });
  });

  it('refuses a folder that now resolves outside the allowed roots', async () => {
    const { store, workspace } = await setup();
    writeFiles(join(workspace, 'p'), { 'a.txt': 'a' });
    const p = await store.resolve('p');
    const outside = tempDir();
    renameSync(join(workspace, 'p'), join(outside, 'p'));
    symlinkSync(join(outside, 'p'), join(workspace, 'p'));
    await expect(store.workdirState(p.id)).rejects.toBeInstanceOf(ForbiddenPathError);
  });
});

describe('ProjectStore.checkWorkdir', () => {
  it('accepts existing directories inside the roots and returns the real path', async () => {
    const extra = tempDir('op-extra-');
    const { store, workspace } = await setup([extra]);
    mkdirSync(join(workspace, 'lib'));
    writeFileSync(join(workspace, 'file'), '');
    expect(await store.checkWorkdir('lib')).toBe(join(workspace, 'lib'));
    expect(await store.checkWorkdir(extra)).toBe(extra);
    expect(await store.checkWorkdirs(['lib', join(workspace, 'lib'), extra])).toEqual([join(workspace, 'lib'), extra]);
    await expect(store.checkWorkdir('file')).rejects.toBeInstanceOf(PreconditionError);
    await expect(store.checkWorkdir('missing')).rejects.toBeInstanceOf(PreconditionError);
    await expect(store.checkWorkdir('/etc')).rejects.toBeInstanceOf(ForbiddenPathError);
  });
});
