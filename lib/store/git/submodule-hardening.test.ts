import { appendFileSync, chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ForbiddenPathError } from '../errors.js';
import { beginProjectTurn, commitChanges, finishProjectTurn } from '../projects/auto-commit.js';
import { runGit } from './git-cli.js';
import { assertRepoSafe, locateGitDirs } from './repo-safety.js';
import { cleanupTempDirs, git, head, makeRepo, tempDir, writeFiles } from '../testing/project-repos.js';

/**
 * DESIGN §2 for nested repositories: a submodule's own config is the user's (or an attacker's)
 * too. A filter planted there must be refused up front, and git must never recurse into the
 * submodule, where the top repository's `-c` overrides cannot name that filter.
 */

afterEach(cleanupTempDirs);

const turn = { sessionId: 'sess0001', turn: 1, userMessage: 'go', model: 'm' };

/** A nested repository at `repo/path` with these files committed. */
function nestedRepo(repo: string, path: string, files: Record<string, string>): string {
  mkdirSync(join(repo, path));
  return makeRepo(files, join(repo, path));
}

/** A project whose committed submodule `sub/` carries `* filter=s` and a planted `filter.s.clean`. */
function projectWithPlantedSubmodule(): { repo: string; marker: string } {
  const marker = join(tempDir(), 'filter-ran');
  const script = join(tempDir(), 'clean.sh');
  writeFileSync(script, `#!/bin/sh\necho ran >> '${marker}'\ncat\n`);
  chmodSync(script, 0o755);
  const repo = makeRepo({ 'a.txt': 'a\n' });
  const sub = nestedRepo(repo, 'sub', { '.gitattributes': '* filter=s\n', 'x.txt': 'x\n' });
  git(repo, 'add', 'sub');
  git(repo, 'commit', '-q', '-m', 'user: add submodule');
  git(sub, 'config', 'filter.s.clean', script);
  // A dirty file in the submodule: a recursive status or add must hash it through the filter.
  appendFileSync(join(sub, 'x.txt'), 'more\n');
  return { repo, marker };
}

describe('a filter planted in a submodule', () => {
  it('is refused by the safety check, at turn start and at turn end', async () => {
    const { repo, marker } = projectWithPlantedSubmodule();
    await expect(assertRepoSafe(repo)).rejects.toBeInstanceOf(ForbiddenPathError);
    await expect(assertRepoSafe(repo)).rejects.toThrow(/sub.*filter\.s\.clean/);
    const snap = await beginProjectTurn(repo);
    expect(snap.state).toBe('unsafe_config');
    expect(snap.message).toContain('filter.s.clean');
    const before = head(repo);
    writeFiles(repo, { 'a.txt': 'agent\n' });
    const res = await finishProjectTurn(snap, { ...turn, writtenPaths: ['a.txt', 'sub'] });
    expect(res.skipped?.reason).toBe('unsafe_config');
    expect(head(repo)).toBe(before);
    expect(existsSync(marker)).toBe(false);
  });

  it('never runs even when git is called past the check: status and staging do not recurse', async () => {
    const { repo, marker } = projectWithPlantedSubmodule();
    await runGit(repo, ['status', '--porcelain=v2', '-z', '--untracked-files=all']);
    await runGit(repo, ['diff-files']);
    writeFiles(repo, { 'a.txt': 'agent\n' });
    const dirs = (await locateGitDirs(repo))!;
    const request = { identity: { name: 'agent', email: 'agent@example.com' }, message: 'm', time: 1_800_000_000, reflog: 'r' };
    const known = await commitChanges(repo, dirs, ['a.txt', 'sub'], request);
    expect(known.paths).toEqual(['a.txt']);
    writeFiles(repo, { 'a.txt': 'agent again\n' });
    const all = await commitChanges(repo, dirs, null, request);
    expect(all.paths).toEqual(['a.txt']);
    expect(existsSync(marker)).toBe(false);
    // Sanity: an unhardened git status does recurse and run the plant.
    git(repo, 'status');
    expect(existsSync(marker)).toBe(true);
  });

  it('a clean submodule is accepted and its own files are never committed by the top repository', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    nestedRepo(repo, 'sub', { 'x.txt': 'x\n' });
    git(repo, 'add', 'sub');
    git(repo, 'commit', '-q', '-m', 'user: add submodule');
    await expect(assertRepoSafe(repo)).resolves.not.toBeNull();
    const snap = await beginProjectTurn(repo);
    expect(snap.state).toBe('ok');
    writeFiles(repo, { 'a.txt': 'agent\n', 'sub/x.txt': 'agent\n' });
    const res = await finishProjectTurn(snap, { ...turn });
    expect(res.paths).toEqual(['a.txt']);
  });
});
