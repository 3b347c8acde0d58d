import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, linkSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { agentTurn, git, openProjectStore, storesClosedAfterEach } from '../testing/project-repos.js';

/** A pid no process has any more: a child that already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

/**
 * What a server killed inside installTempIndex leaves: its private index, and git's index.lock
 * as a hard link to it (the lock is taken that way so that it can be told apart afterwards).
 */
function plantKilledCommit(gitDir: string): { file: string; lock: string } {
  const file = join(gitDir, `openprogram-index-${deadPid()}-0badc0de`);
  copyFileSync(join(gitDir, 'index'), file);
  const lock = join(gitDir, 'index.lock');
  linkSync(file, lock);
  return { file, lock };
}

describe('a commit killed while holding the project index lock', () => {
  const stores = storesClosedAfterEach();

  it('start-up removes the lock and the private index; the user can use git again', async () => {
    const { store, stateDir, workspace, projectDir } = await openProjectStore();
    git(projectDir, 'add', '-A'); // an index to copy
    await store.close();
    const { file, lock } = plantKilledCommit(join(projectDir, '.git'));
    writeFileSync(join(projectDir, 'notes.txt'), 'mine\n');
    expect(() => git(projectDir, 'add', 'notes.txt')).toThrow(/index\.lock/);

    stores.push(await SessionStore.open({ stateDir, workspaceRoot: workspace }));
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(file)).toBe(false);
    git(projectDir, 'add', 'notes.txt');
    expect(git(projectDir, 'diff', '--cached', '--name-only')).toBe('notes.txt');
  });

  it("leaves a lock that is not its own (the user's git at work) and a live process's private index", async () => {
    const { store, stateDir, workspace, projectDir } = await openProjectStore();
    git(projectDir, 'add', '-A');
    await store.close();
    const gitDir = join(projectDir, '.git');
    const lock = join(gitDir, 'index.lock');
    writeFileSync(lock, ''); // the user's git, mid-write
    const dead = join(gitDir, `openprogram-index-${deadPid()}-0badc0de`);
    copyFileSync(join(gitDir, 'index'), dead);
    const live = join(gitDir, `openprogram-index-${process.ppid}-0badf00d`); // vitest's own parent: alive
    copyFileSync(join(gitDir, 'index'), live);

    stores.push(await SessionStore.open({ stateDir, workspaceRoot: workspace }));
    expect(existsSync(lock)).toBe(true);
    expect(existsSync(dead)).toBe(false); // a dead process's private index is only litter
    expect(existsSync(live)).toBe(true);
  });

  it('the next agent commit in the project clears a lock a kill left while the store ran', async () => {
    const { store, projectDir } = await openProjectStore();
    stores.push(store);
    await store.createSession({ id: 's', projectId: (await store.listProjects())[1]!.id });
    git(projectDir, 'add', '-A');
    const { lock } = plantKilledCommit(join(projectDir, '.git'));
    const { end } = await agentTurn(store, 's', projectDir, { 'out.txt': 'agent\n' });
    expect(end.projectCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(join(projectDir, '.git')).filter((name) => name.startsWith('openprogram-index-'))).toEqual([]);
    expect(git(projectDir, 'status', '--porcelain')).toBe('');
  });

  it('a lock left by an earlier process with this very pid (a restarted container) is cleared; a fresh private index of this pid is not', async () => {
    const { store, stateDir, workspace, projectDir } = await openProjectStore();
    git(projectDir, 'add', '-A');
    await store.close();
    const gitDir = join(projectDir, '.git');
    const earlier = join(gitDir, `openprogram-index-${process.pid}-0badc0de`);
    copyFileSync(join(gitDir, 'index'), earlier);
    const lock = join(gitDir, 'index.lock');
    linkSync(earlier, lock);
    const before = (Date.now() - process.uptime() * 1000) / 1000 - 60; // a minute before this process began
    utimesSync(earlier, before, before);
    const fresh = join(gitDir, `openprogram-index-${process.pid}-0badf00d`); // one this process writes now
    copyFileSync(join(gitDir, 'index'), fresh);

    stores.push(await SessionStore.open({ stateDir, workspaceRoot: workspace }));
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(earlier)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  });
});
