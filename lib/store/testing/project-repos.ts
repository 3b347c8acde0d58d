import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import { SessionStore } from '../session-store.js';

/** Helpers for the tests beside this folder's modules: real temporary git repositories. */

const created: string[] = [];

/** A fresh real (symlink-free) temporary directory, removed by cleanupTempDirs. */
export function tempDir(prefix = 'op-projects-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  created.push(dir);
  return dir;
}

export function cleanupTempDirs(): void {
  while (created.length) rmSync(created.pop()!, { recursive: true, force: true });
}

/** The test's own git: isolated from the machine's config, as a person at a terminal. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Test User', '-c', 'user.email=user@example.com', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', GIT_CEILING_DIRECTORIES: dirname(cwd) } as unknown as NodeJS.ProcessEnv,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).replace(/\n$/, '');
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const abs = join(root, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** A repository with these files committed by the user (no commit when `files` is empty). */
export function makeRepo(files: Record<string, string> = { 'README.md': 'hello\n' }, dir = tempDir()): string {
  git(dir, 'init', '-q', '--initial-branch=main', dir);
  if (Object.keys(files).length > 0) {
    writeFiles(dir, files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'user: initial');
  }
  return dir;
}

export function head(dir: string): string {
  return git(dir, 'rev-parse', 'HEAD');
}

/** `git status --porcelain` lines, sorted. */
export function status(dir: string): string[] {
  const out = git(dir, 'status', '--porcelain=v1', '--untracked-files=all');
  return out ? out.split('\n').sort() : [];
}

/** A store whose workspace holds a user's git project, registered as "App". */
export async function openProjectStore() {
  const stateDir = tempDir('em-state-');
  const workspace = tempDir('em-ws-');
  mkdirSync(join(workspace, 'app'));
  const projectDir = makeRepo({ 'README.md': 'hello\n', 'src/app.ts': 'export {}\n' }, join(workspace, 'app'));
  const store = await SessionStore.open({ stateDir, workspaceRoot: workspace });
  const project = await store.createProject(projectDir, 'App');
  return { store, stateDir, workspace, projectDir, project };
}

/** One agent turn that writes `files` into the project (known to the turn unless `known` is false). */
export async function agentTurn(store: SessionStore, sessionId: string, projectDir: string, files: Record<string, string>, known = true) {
  const begin = await store.beginTurn(sessionId);
  await store.appendMessage(sessionId, { role: 'user', content: `please write ${Object.keys(files).join(', ')}` });
  for (const path of Object.keys(files)) await store.snapshotBeforeEdit(sessionId, path);
  writeFiles(projectDir, files);
  await store.appendMessage(sessionId, { role: 'assistant', content: 'done' });
  const end = await store.finalizeTurn(sessionId, { writtenPaths: known ? Object.keys(files) : undefined, model: 'test-model' });
  return { begin, end };
}

/** For one describe: the stores its tests push here are closed after each test, and the temporary directories removed. */
export function storesClosedAfterEach(): SessionStore[] {
  const stores: SessionStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    cleanupTempDirs();
  });
  return stores;
}
