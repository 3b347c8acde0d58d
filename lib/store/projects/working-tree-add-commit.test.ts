import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, git, makeRepo, status, tempDir, writeFiles } from '../testing/project-repos.js';
import { commitWorkingTree } from './working-tree-commit.js';
import { indexChanges } from './working-tree-add-commit.js';
import { indexLayout } from '../git/index-file.js';

afterEach(cleanupTempDirs);

const exchange = { sessionId: 'wt-session', turn: 2, userMessage: 'edit things', model: 'test-model' };

/** The subcommand of every git started while `fn` runs (a `git` first on PATH that notes it). */
async function gitStartsDuring<T>(fn: () => Promise<T>): Promise<{ result: T; subcommands: string[] }> {
  const bin = tempDir('op-git-shim-');
  const log = join(bin, 'starts.log');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  // The subcommand is the first argument that is neither `-c` nor the value after it.
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nfor a in "$@"; do case "$skip$a" in 1*) skip=;; -c) skip=1;; *) echo "$a" >> '${log}'; break;; esac; done\nexec '${realGit}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  writeFileSync(log, '');
  const before = process.env.PATH;
  process.env.PATH = `${bin}:${before ?? ''}`;
  try {
    const result = await fn();
    return { result, subcommands: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
  } finally {
    process.env.PATH = before;
  }
}

function repoOf200Files(): string {
  const files: Record<string, string> = { '.gitignore': 'build/\n', 'README.md': 'hello\n' };
  for (let i = 0; i < 200; i++) files[`src/f${i}.ts`] = `export const v${i} = ${i};\n`;
  const dir = makeRepo(files);
  git(dir, 'status'); // the user's git refreshes the index, as it would have by now
  return dir;
}

describe("an agent exchange's commit by git add -A into a copy of the index", () => {
  it('starts only git add and write-tree once the config is known, and commits exactly what changed', async () => {
    const dir = repoOf200Files();
    await commitWorkingTree(dir, exchange); // nothing to commit; reads (and caches) the repository's config
    writeFiles(dir, { 'src/f1.ts': 'changed\n', 'docs/new/deep.md': 'new\n', 'build/out.js': 'ignored\n' });
    rmSync(join(dir, 'README.md'));
    const { result, subcommands } = await gitStartsDuring(() => commitWorkingTree(dir, exchange));
    expect(subcommands).toEqual(['add', 'write-tree']);
    expect(result.sha).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(result.paths.sort()).toEqual(['README.md', 'docs/new/deep.md', 'src/f1.ts']);
    expect(git(dir, 'show', '--name-status', '--format=', 'HEAD').split('\n').sort()).toEqual(['A\tdocs/new/deep.md', 'D\tREADME.md', 'M\tsrc/f1.ts']);
    expect(git(dir, 'reflog', '-1', '--format=%gs')).toBe('openprogram: agent exchange, turn 2');
    expect(status(dir)).toEqual([]);
    expect(git(dir, 'fsck', '--no-progress')).toBe('');
    // The next exchange finds the index it left (its cache-tree is HEAD's tree) and stays on this path.
    writeFiles(dir, { 'src/f2.ts': 'again\n' });
    const next = await gitStartsDuring(() => commitWorkingTree(dir, { ...exchange, turn: 3 }));
    expect(next.subcommands).toEqual(['add', 'write-tree']);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/f2.ts');
  });

  it('changes the user staged are still refused (the cache-tree no longer vouches for the index)', async () => {
    const dir = repoOf200Files();
    writeFiles(dir, { 'src/f1.ts': 'staged by the user\n', 'src/f2.ts': 'the agent\n' });
    git(dir, 'add', 'src/f1.ts');
    const before = git(dir, 'rev-parse', 'HEAD');
    const result = await commitWorkingTree(dir, exchange);
    expect(result.skipped?.reason).toBe('dirty_index');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(before);
    expect(status(dir)).toEqual([' M src/f2.ts', 'M  src/f1.ts']);
  });

  it('a file written after the answer ended waits for the next commit; the index keeps it as the user had it', async () => {
    const dir = repoOf200Files();
    writeFiles(dir, { 'src/f1.ts': 'before the end\n', 'src/f2.ts': 'still being written\n', 'late.md': 'new and late\n' });
    const cut = Date.now() - 60_000;
    utimesSync(join(dir, 'src/f1.ts'), new Date(cut - 60_000), new Date(cut - 60_000));
    const { result, subcommands } = await gitStartsDuring(() => commitWorkingTree(dir, { ...exchange, writtenBefore: cut }));
    expect(subcommands).toContain('add');
    expect(result.paths).toEqual(['src/f1.ts']);
    expect(git(dir, 'show', '--name-only', '--format=', 'HEAD')).toBe('src/f1.ts');
    expect(status(dir)).toEqual([' M src/f2.ts', '?? late.md']);
  });

  it('reads the changes between two index files as git diff-index names them; format 4 is left to the status path', () => {
    const dir = makeRepo({ 'a.txt': 'a\n', 'b.sh': 'b\n', 'c.txt': 'c\n', 'd.txt': 'd\n' });
    const before = readFileSync(join(dir, '.git', 'index'));
    writeFiles(dir, { 'bb.txt': 'new\n', 'c.txt': 'changed\n' });
    chmodSync(join(dir, 'b.sh'), 0o755);
    rmSync(join(dir, 'd.txt'));
    git(dir, 'add', '-A');
    const after = readFileSync(join(dir, '.git', 'index'));
    const ours = indexChanges(indexLayout(before)!, indexLayout(after)!).map((c) => `:${c.oldMode} ${c.newMode} ${c.oldSha} ${c.newSha} ${c.status}\t${c.path}`);
    expect(ours).toEqual(git(dir, 'diff-index', '--cached', '--raw', '--full-index', '--no-renames', 'HEAD').split('\n'));
    expect(indexLayout(after)!.rootTree).toBeNull(); // git add left the cache-tree invalid
    git(dir, 'update-index', '--index-version', '4');
    expect(indexLayout(readFileSync(join(dir, '.git', 'index')))).toBeNull();
  });
});
