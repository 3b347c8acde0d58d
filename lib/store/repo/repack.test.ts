import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, git, makeRepo } from '../testing/project-repos.js';
import { repack } from './repack.js';

afterEach(cleanupTempDirs);

function packs(repo: string): string[] {
  return readdirSync(join(repo, '.git', 'objects', 'pack')).filter((n) => n.endsWith('.pack'));
}

describe('repack', () => {
  it('packs its own repository whatever GIT_* variables the server process carries', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const other = makeRepo({ 'b.txt': 'b\n' });
    process.env.GIT_DIR = join(other, '.git');
    process.env.GIT_OBJECT_DIRECTORY = join(other, '.git', 'objects');
    try {
      await repack(repo);
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.GIT_OBJECT_DIRECTORY;
    }
    expect(packs(repo)).toHaveLength(1);
    expect(packs(other)).toHaveLength(0);
    expect(git(repo, 'cat-file', '-t', 'HEAD')).toBe('commit');
  });

  it('a full repack writes one pack with a reachability bitmap (what makes a long session\'s bundle fast); an incremental one none', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    await repack(repo);
    const bitmaps = () => readdirSync(join(repo, '.git', 'objects', 'pack')).filter((n) => n.endsWith('.bitmap'));
    expect(bitmaps()).toHaveLength(0);
    git(repo, 'commit', '--allow-empty', '-q', '-m', 'second');
    await repack(repo, { full: true });
    expect(packs(repo)).toHaveLength(1);
    expect(bitmaps()).toHaveLength(1);
    expect(git(repo, 'rev-list', '--count', '--use-bitmap-index', 'HEAD')).toBe('2');
  });
});
