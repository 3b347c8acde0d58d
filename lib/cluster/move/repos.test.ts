import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refsFromFiles, refsFromGit, refsOf } from './repos.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((root) => rmSync(root, { recursive: true, force: true })));

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', ...args], { cwd: repo, encoding: 'utf8' }).trim();
}

/** A repository with three commits on main, a nested branch and an annotated and a light tag. */
function repo(): { repo: string; commits: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'em-refs-'));
  roots.push(root);
  git(root, 'init', '-q', '-b', 'main');
  const commits: string[] = [];
  for (let i = 0; i < 3; i++) {
    git(root, 'commit', '-q', '--allow-empty', '-m', `c${i}`);
    commits.push(git(root, 'rev-parse', 'HEAD'));
  }
  git(root, 'branch', 'turns/2026/a', commits[0]!);
  git(root, 'branch', 'z', commits[1]!);
  git(root, 'tag', '-a', '-m', 'annotated', 'v1', commits[1]!);
  git(root, 'tag', 'light', commits[2]!);
  return { repo: root, commits };
}

/** The files' reading must be the one git gives, names in the same order, and not git's own answer by fallback. */
async function expectAsGit(path: string): Promise<void> {
  const fromFiles = await refsFromFiles(path);
  expect(fromFiles).not.toBeNull();
  expect(Object.entries(fromFiles!)).toEqual(Object.entries(await refsFromGit(path)));
}

describe('refsFromFiles: a repository\'s refs without a git process', () => {
  it('reads loose refs, nested names and tags as for-each-ref lists them', async () => {
    const { repo: path } = repo();
    await expectAsGit(path);
    expect(Object.keys((await refsFromFiles(path))!)).toEqual(['refs/heads/main', 'refs/heads/turns/2026/a', 'refs/heads/z', 'refs/tags/light', 'refs/tags/v1']);
  });

  it('reads packed refs (pack-refs --all, with the peeled lines of an annotated tag)', async () => {
    const { repo: path } = repo();
    git(path, 'pack-refs', '--all');
    await expectAsGit(path);
  });

  it('prefers a loose ref over the packed one of the same name', async () => {
    const { repo: path, commits } = repo();
    git(path, 'pack-refs', '--all');
    // update-ref writes a loose file and leaves the packed line, now stale, in packed-refs
    git(path, 'update-ref', 'refs/heads/z', commits[2]!);
    git(path, 'update-ref', 'refs/heads/turns/2026/a', commits[1]!);
    git(path, 'branch', 'turns/2026/b', commits[0]!);
    const refs = (await refsFromFiles(path))!;
    expect(refs['refs/heads/z']).toBe(commits[2]);
    expect(refs['refs/heads/turns/2026/a']).toBe(commits[1]);
    await expectAsGit(path);
  });

  it('lists a symbolic ref under refs/ with the commit it resolves to, and a ref to a missing object as it is', async () => {
    const { repo: path, commits } = repo();
    git(path, 'symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/heads/z');
    writeFileSync(join(path, '.git', 'refs', 'heads', 'gone'), '0123456789012345678901234567890123456789\n');
    git(path, 'pack-refs', '--all');
    git(path, 'symbolic-ref', 'refs/heads/alias', 'refs/remotes/origin/HEAD');
    const refs = (await refsFromFiles(path))!;
    expect(refs['refs/remotes/origin/HEAD']).toBe(commits[1]);
    expect(refs['refs/heads/alias']).toBe(commits[1]);
    await expectAsGit(path);
  });

  it('hands an odd repository to git: a symbolic ref naming nothing, a lock file, an unreadable ref', async () => {
    const { repo: path } = repo();
    git(path, 'symbolic-ref', 'refs/heads/dangling', 'refs/heads/nothing');
    expect(await refsFromFiles(path)).toBeNull();
    expect(Object.entries(await refsOf(path))).toEqual(Object.entries(await refsFromGit(path)));
    expect(await refsOf(path)).not.toHaveProperty('refs/heads/dangling');

    const { repo: locked } = repo();
    writeFileSync(join(locked, '.git', 'refs', 'heads', 'main.lock'), 'half-written');
    expect(await refsFromFiles(locked)).toBeNull();
    expect(await refsOf(locked)).toEqual(await refsFromGit(locked));

    const { repo: garbled } = repo();
    mkdirSync(join(garbled, '.git', 'refs', 'heads', 'x'));
    writeFileSync(join(garbled, '.git', 'refs', 'heads', 'x', 'y'), 'not a ref\n');
    expect(await refsFromFiles(garbled)).toBeNull();
  });

  it('reads a repository with no refs at all (an unborn main) as empty, as git does', async () => {
    const root = mkdtempSync(join(tmpdir(), 'em-refs-'));
    roots.push(root);
    git(root, 'init', '-q', '-b', 'main');
    expect(await refsFromFiles(root)).toEqual({});
    expect(await refsFromGit(root)).toEqual({});
  });
});
