import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PreconditionError } from '../errors.js';
import { ensureProjectRepo, unignoredDependencyFolders } from './init-project-repo.js';
import { cleanupTempDirs, git, makeRepo, tempDir, writeFiles } from '../testing/project-repos.js';

afterEach(cleanupTempDirs);

describe('ensureProjectRepo', () => {
  it('initialises an empty folder on branch main without a commit', async () => {
    const dir = tempDir();
    expect(await ensureProjectRepo(dir)).toEqual({ initialized: true, baseline: null });
    expect(git(dir, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');
  });

  it('reuses an existing repository and leaves it alone', async () => {
    const dir = makeRepo();
    expect(await ensureProjectRepo(dir)).toEqual({ initialized: false, baseline: null });
  });

  it('lists only dependency folders that no .gitignore excludes', async () => {
    const dir = tempDir();
    for (const d of ['node_modules', 'target', 'build']) mkdirSync(join(dir, d));
    writeFileSync(join(dir, 'dist'), 'a file named dist is not a folder');
    writeFileSync(join(dir, '.gitignore'), '/target/\n');
    expect(await unignoredDependencyFolders(dir)).toEqual(['node_modules', 'build']);
    await expect(ensureProjectRepo(dir)).rejects.toBeInstanceOf(PreconditionError);
    expect(existsSync(join(dir, '.git'))).toBe(false);
  });

  it('commits the files already there as a baseline, respecting .gitignore', async () => {
    const dir = tempDir();
    writeFiles(dir, { 'src/a.py': 'print(1)\n', '.gitignore': '.venv/\n', '.venv/bin/python': '' });
    const res = await ensureProjectRepo(dir);
    expect(res.baseline).toMatch(/^[0-9a-f]{40}$/);
    expect(git(dir, 'ls-files')).toBe('.gitignore\nsrc/a.py');
    expect(git(dir, 'status', '--porcelain')).toBe('');
  });
});
