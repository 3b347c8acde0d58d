import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanupTempDirs, git, makeRepo, status, tempDir, writeFiles } from '../testing/project-repos.js';
import { commitWorkingTree } from './working-tree-commit.js';
import { writeCommitObject } from './commit-object.js';
import { commitTree } from './commit-plumbing.js';
import { locateGitDirs } from '../git/repo-safety.js';

afterEach(cleanupTempDirs);

const exchange = { sessionId: 'wt-session', turn: 2, userMessage: 'edit things', model: 'test-model' };

/** A `git` first on PATH that notes each start, then runs the real one: counts our processes. */
function countGitStarts(): { count: () => number; restore: () => void } {
  const bin = tempDir('op-git-shim-');
  const log = join(bin, 'starts.log');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho x >> '${log}'\nexec '${realGit}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  writeFileSync(log, '');
  const before = process.env.PATH;
  process.env.PATH = `${bin}:${before ?? ''}`;
  return {
    count: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length,
    restore: () => {
      process.env.PATH = before;
    },
  };
}

describe("an agent exchange's whole-tree commit (commitWorkingTree)", () => {
  it('commits exactly the changed, new, deleted and untracked paths with five git processes, whatever the size of the tree', async () => {
    const files: Record<string, string> = { '.gitignore': 'build/\n', 'README.md': 'hello\n' };
    for (let i = 0; i < 200; i++) files[`src/f${i}.ts`] = `export const v${i} = ${i};\n`;
    const dir = makeRepo(files);
    writeFiles(dir, { 'src/f1.ts': 'changed\n', 'docs/new/deep.md': 'new\n', 'build/out.js': 'ignored\n' });
    rmSync(join(dir, 'README.md'));
    const shim = countGitStarts();
    let result;
    try {
      result = await commitWorkingTree(dir, exchange);
    } finally {
      shim.restore();
    }
    // the safety check's config read, status, update-index, write-tree, update-ref (the old staging of the whole tree took seven)
    expect(shim.count()).toBeLessThanOrEqual(5);
    expect(result.sha).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(result.parent).toBe(git(dir, 'rev-parse', 'HEAD~1'));
    expect(git(dir, 'show', '--name-status', '--format=', 'HEAD').split('\n').sort()).toEqual(['A\tdocs/new/deep.md', 'D\tREADME.md', 'M\tsrc/f1.ts']);
    expect(git(dir, 'log', '-1', '--format=%an <%ae>')).toBe('agent (test-model via Entity Memory) <agent@openprogram.local>');
    // The real index now agrees with the commit; the ignored file stays out.
    expect(status(dir)).toEqual([]);
    expect(git(dir, 'status', '--porcelain', '--ignored')).toBe('!! build/');
  });

  it('a file that became a folder, a folder that became a file, and an executable bit', async () => {
    const dir = makeRepo({ 'a.txt': 'file\n', 'dir/x.txt': 'x\n', 'run.sh': 'echo\n' });
    rmSync(join(dir, 'a.txt'));
    writeFiles(dir, { 'a.txt/inner.txt': 'now a folder\n' });
    rmSync(join(dir, 'dir'), { recursive: true });
    writeFileSync(join(dir, 'dir'), 'now a file\n');
    chmodSync(join(dir, 'run.sh'), 0o755);
    const result = await commitWorkingTree(dir, exchange);
    expect(result.sha).not.toBeNull();
    expect(git(dir, 'ls-tree', '-r', '--format=%(objectmode) %(path)', 'HEAD').split('\n').sort()).toEqual([
      '100644 a.txt/inner.txt',
      '100644 dir',
      '100755 run.sh',
    ]);
    expect(status(dir)).toEqual([]);
  });
});

describe('writeCommitObject', () => {
  it('writes the very commit git commit-tree writes for the same tree, parent, identity, time and message', async () => {
    const dir = makeRepo({ 'README.md': 'hello\n' });
    const dirs = (await locateGitDirs(dir))!;
    const spec = {
      tree: git(dir, 'rev-parse', 'HEAD^{tree}'),
      parent: git(dir, 'rev-parse', 'HEAD'),
      message: '[agent s] turn 1: héllo\n\nOpenProgram-Session: s\n',
      author: { name: 'agent (m via Entity Memory)', email: 'agent@openprogram.local' },
      committer: { name: 'agent (m via Entity Memory)', email: 'agent@openprogram.local' },
      time: 1_700_000_000,
    };
    const ours = await writeCommitObject(dir, dirs, spec);
    expect(ours).toBe(await commitTree(dir, spec));
    expect(git(dir, 'cat-file', '-t', ours)).toBe('commit');
  });
});
