import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listGitlinks, parseIndexGitlinks } from './gitlinks.js';
import { cleanupTempDirs, git, makeRepo, writeFiles } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

/** A repository with many files around two committed submodules, one of them nested deep. */
function repoWithGitlinks(): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) files[`src/dir${i % 7}/file-with-a-longish-name-${i}.txt`] = `${i}\n`;
  const repo = makeRepo(files);
  for (const path of ['lib/vendored', 'src/dir3/deeper/mod']) {
    mkdirSync(join(repo, path), { recursive: true });
    makeRepo({ 'x.txt': 'x\n' }, join(repo, path));
    git(repo, 'add', path);
  }
  writeFiles(repo, { 'zz.txt': 'z\n' });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'submodules');
  return repo;
}

describe('gitlinks of an index', () => {
  it.each([2, 3, 4])('reads index format %i like git ls-files does', async (version) => {
    const repo = repoWithGitlinks();
    git(repo, 'update-index', '--index-version', String(version));
    // Format 3 only differs when an entry has extended flags (intent-to-add).
    if (version === 3) {
      writeFiles(repo, { 'new.txt': 'n\n' });
      git(repo, 'add', '-N', 'new.txt');
    }
    const index = join(repo, '.git', 'index');
    expect(readFileSync(index).readUInt32BE(4)).toBe(version);
    const expected = git(repo, 'ls-files', '-s').split('\n').filter((l) => l.startsWith('160000')).map((l) => l.split('\t')[1]);
    expect(expected).toEqual(['lib/vendored', 'src/dir3/deeper/mod']);
    expect(parseIndexGitlinks(readFileSync(index))).toEqual(expected);
    expect(await listGitlinks(repo, index)).toEqual(expected);
  });

  it('answers null for what it cannot read, and none for a missing index', async () => {
    expect(parseIndexGitlinks(Buffer.from('not an index'))).toBeNull();
    const repo = repoWithGitlinks();
    const index = readFileSync(join(repo, '.git', 'index'));
    expect(parseIndexGitlinks(index.subarray(0, 300))).toBeNull();
    expect(await listGitlinks(repo, join(repo, '.git', 'no-such-index'))).toEqual([]);
  });

  it('falls back to git for a split index', async () => {
    const repo = repoWithGitlinks();
    git(repo, 'update-index', '--split-index');
    const index = join(repo, '.git', 'index');
    expect(parseIndexGitlinks(readFileSync(index))).toBeNull();
    expect(await listGitlinks(repo, index)).toEqual(['lib/vendored', 'src/dir3/deeper/mod']);
  });
});
