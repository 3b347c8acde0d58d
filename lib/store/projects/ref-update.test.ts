import { spawnSync } from 'node:child_process';
import { existsSync, linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../errors.js';
import { cleanupTempDirs, git, head, makeRepo } from '../testing/project-repos.js';
import { updateHeadInProcess } from './ref-update.js';

const who = { name: 'Claude Code (test-model)', email: 'agent@openprogram.local' };

/** A second commit on top of HEAD, made by git but not yet pointed to by anything. */
function nextCommit(dir: string, message = 'next'): string {
  return git(dir, 'commit-tree', `${head(dir)}^{tree}`, '-p', head(dir), '-m', message);
}

function dirsOf(dir: string) {
  return { gitDir: join(dir, '.git'), commonDir: join(dir, '.git') };
}

/** Lock and private files left in the git directory and refs/heads. */
function leftovers(dir: string): string[] {
  const gitDir = join(dir, '.git');
  return [...readdirSync(gitDir), ...readdirSync(join(gitDir, 'refs', 'heads'))].filter((n) => n.endsWith('.lock') || n.startsWith('openprogram-ref-'));
}

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

describe('updateHeadInProcess (git update-ref without a process)', () => {
  afterEach(cleanupTempDirs);

  it('moves the branch HEAD names and writes both reflogs as git reads them', () => {
    const dir = makeRepo();
    const old = head(dir);
    const next = nextCommit(dir);
    expect(updateHeadInProcess(dirsOf(dir), next, old, 'openprogram: agent exchange,\nturn 2', who, 1_700_000_000)).toBe('done');
    expect(git(dir, 'rev-parse', 'refs/heads/main')).toBe(next);
    expect(git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
    expect(git(dir, 'reflog', '-1', '--format=%H %gs', 'main')).toBe(`${next} openprogram: agent exchange, turn 2`);
    expect(git(dir, 'reflog', '-1', '--format=%H %gn <%ge>', 'HEAD')).toBe(`${next} ${who.name} <${who.email}>`);
    expect(git(dir, 'fsck', '--no-progress')).toBe('');
    expect(leftovers(dir)).toEqual([]);
  });

  it('updates a branch that is only in packed-refs', () => {
    const dir = makeRepo();
    git(dir, 'pack-refs', '--all');
    expect(existsSync(join(dir, '.git', 'refs', 'heads', 'main'))).toBe(false);
    const next = nextCommit(dir);
    expect(updateHeadInProcess(dirsOf(dir), next, head(dir), 'm', who, 1)).toBe('done');
    expect(head(dir)).toBe(next);
  });

  it('refuses when the branch moved underneath (a concurrent commit) and leaves no lock behind', () => {
    const dir = makeRepo();
    const seen = head(dir);
    const theirs = nextCommit(dir, 'theirs');
    git(dir, 'update-ref', 'HEAD', theirs);
    const ours = nextCommit(dir, 'ours');
    const reflog = readFileSync(join(dir, '.git', 'logs', 'HEAD'), 'utf8');
    expect(() => updateHeadInProcess(dirsOf(dir), ours, seen, 'm', who, 1)).toThrow(ConflictError);
    expect(head(dir)).toBe(theirs);
    expect(readFileSync(join(dir, '.git', 'logs', 'HEAD'), 'utf8')).toBe(reflog);
    expect(leftovers(dir)).toEqual([]);
  });

  it("refuses while the user's git holds the branch's lock, and leaves that lock alone", () => {
    const dir = makeRepo();
    const lock = join(dir, '.git', 'refs', 'heads', 'main.lock');
    writeFileSync(lock, '');
    const old = head(dir);
    expect(() => updateHeadInProcess(dirsOf(dir), nextCommit(dir), old, 'm', who, 1)).toThrow(/main\.lock exists/);
    expect(head(dir)).toBe(old);
    expect(existsSync(lock)).toBe(true);
    expect(existsSync(join(dir, '.git', 'HEAD.lock'))).toBe(false);
  });

  it('clears the locks a killed process left (hard links to its private file) and then updates', () => {
    const dir = makeRepo();
    const gitDir = join(dir, '.git');
    const file = join(gitDir, `openprogram-ref-${deadPid()}-0badc0de`);
    writeFileSync(file, `${head(dir)}\n`);
    linkSync(file, join(gitDir, 'HEAD.lock'));
    linkSync(file, join(gitDir, 'refs', 'heads', 'main.lock'));
    expect(() => git(dir, 'update-ref', 'HEAD', head(dir))).toThrow(/lock/);
    const next = nextCommit(dir);
    expect(updateHeadInProcess(dirsOf(dir), next, head(dir), 'm', who, 1)).toBe('done');
    expect(head(dir)).toBe(next);
    expect(leftovers(dir)).toEqual([]);
  });

  it('leaves what git must decide to git: a detached HEAD, a branch without a reflog', () => {
    const dir = makeRepo();
    const next = nextCommit(dir);
    git(dir, 'checkout', '-q', '--detach');
    expect(updateHeadInProcess(dirsOf(dir), next, head(dir), 'm', who, 1)).toBe('unsupported');
    git(dir, 'checkout', '-q', '-b', 'unlogged');
    rmSync(join(dir, '.git', 'logs', 'refs', 'heads', 'unlogged'));
    expect(updateHeadInProcess(dirsOf(dir), next, head(dir), 'm', who, 1)).toBe('unsupported');
    expect(leftovers(dir)).toEqual([]);
  });
});
