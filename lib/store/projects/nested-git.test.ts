import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, git, head, makeRepo } from '../testing/project-repos.js';
import { findNestedGit } from './nested-git.js';

describe('findNestedGit', () => {
  afterEach(cleanupTempDirs);

  it('names a .gitmodules written and a repository in a folder written into', async () => {
    const root = makeRepo();
    makeRepo({ 'a.txt': 'a\n' }, (mkdirSync(join(root, 'vendor', 'lib'), { recursive: true }), join(root, 'vendor', 'lib')));
    writeFileSync(join(root, '.gitmodules'), '[submodule "x"]\n');
    expect(await findNestedGit(root, ['.gitmodules', 'vendor/lib/a.txt', 'README.md'], head(root))).toEqual(['.gitmodules', 'vendor/lib/.git']);
    // The folder itself, as `git add` reports a nested repository, and as `git status` does.
    expect(await findNestedGit(root, ['vendor/lib'], head(root))).toEqual(['vendor/lib/.git']);
    expect(await findNestedGit(root, ['vendor/lib/'], head(root))).toEqual(['vendor/lib/.git']);
  });

  it('a gitfile counts as much as a .git folder; other names and the project root do not', async () => {
    const root = makeRepo();
    mkdirSync(join(root, 'w'));
    writeFileSync(join(root, 'w', '.git'), 'gitdir: /elsewhere\n');
    writeFileSync(join(root, 'notes.gitmodules.txt'), '');
    expect(await findNestedGit(root, ['w/x.ts', 'notes.gitmodules.txt', 'README.md'], head(root))).toEqual(['w/.git']);
  });

  it('leaves out a submodule HEAD already has: the user put it there', async () => {
    const root = makeRepo();
    const sub = makeRepo({ 'lib.txt': 'x\n' });
    git(root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'deps/sub');
    git(root, 'commit', '-q', '-m', 'user: submodule');
    expect(await findNestedGit(root, ['deps/sub/lib.txt'], head(root))).toEqual([]);
    expect(await findNestedGit(root, ['deps/sub/lib.txt'], null)).toEqual(['deps/sub/.git']);
  });
});
