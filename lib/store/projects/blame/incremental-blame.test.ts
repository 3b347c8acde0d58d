import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, tempDir } from '../../testing/project-repos.js';
import type { CachedBlame } from './blame-cache.js';
import { applyHunks, parsePathDiff, UnexpectedDiff } from './blame-diff.js';
import { incrementalBlame } from './incremental-blame.js';

/**
 * Incremental blame (a cached blame moved forward by the `-U0` diffs since) against git's own
 * `git blame --porcelain`, run with no option at all, on random linear histories of a small
 * file: equal at every commit, stepping one commit at a time and jumping from the first to the last.
 */

const run = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, '-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { encoding: 'utf8' });

/** `git blame --porcelain` as git answers it by default: each line's commit. */
function gitBlameLines(cwd: string, rev: string): string[] {
  const lines: string[] = [];
  let sha = '';
  let finalLine = 0;
  for (const row of run(cwd, 'blame', '--porcelain', rev, '--', 'f.txt').split('\n')) {
    const header = /^([0-9a-f]{40}) \d+ (\d+)/.exec(row);
    if (header) [sha, finalLine] = [header[1]!, Number(header[2])];
    else if (row.startsWith('\t')) lines[finalLine - 1] = sha;
  }
  return lines;
}

/** Few distinct lines, blank ones and braces: the cases where diffs have several equally short answers. */
const line = fc.constantFrom('a', 'b', 'c', '', '}', '{', '  x', '  return;');
const edit = fc.record({
  kind: fc.constantFrom('insert', 'delete', 'replace'),
  at: fc.nat(20),
  count: fc.integer({ min: 1, max: 4 }),
  lines: fc.array(line, { minLength: 1, maxLength: 5 }),
});
const commit = fc.record({
  edits: fc.array(edit, { maxLength: 4 }),
  /** a commit that leaves f.txt alone (the log lists it; blame skips it) */
  otherFileOnly: fc.boolean(),
  finalNewline: fc.boolean(),
});
interface Edit {
  kind: string;
  at: number;
  count: number;
  lines: string[];
}
interface History {
  first: string[];
  commits: Array<{ edits: Edit[]; otherFileOnly: boolean; finalNewline: boolean }>;
}
const history: fc.Arbitrary<History> = fc.record({ first: fc.array(line, { maxLength: 12 }), commits: fc.array(commit, { minLength: 1, maxLength: 6 }) });

function applyEdits(lines: string[], edits: readonly Edit[]): string[] {
  const out = [...lines];
  for (const { kind, at, count, lines: added } of edits) {
    const index = Math.min(at, out.length);
    if (kind === 'insert') out.splice(index, 0, ...added);
    else if (kind === 'delete') out.splice(index, count);
    else out.splice(index, count, ...added);
  }
  return out;
}

function content(lines: string[], finalNewline: boolean): string {
  return lines.length === 0 ? '' : lines.join('\n') + (finalNewline ? '\n' : '');
}

/** The repo and each commit's id, the first one's blame as git gives it. */
function buildHistory(input: History) {
  const dir = tempDir('op-blame-prop-');
  run(dir, 'init', '-q', '-b', 'main');
  let lines = input.first;
  writeFileSync(join(dir, 'f.txt'), content(lines, true));
  run(dir, 'add', 'f.txt');
  run(dir, 'commit', '-qm', 'first');
  const shas = [run(dir, 'rev-parse', 'HEAD').trim()];
  input.commits.forEach((step, i) => {
    if (step.otherFileOnly) writeFileSync(join(dir, 'other.txt'), `${i}\n`);
    else {
      lines = applyEdits(lines, step.edits);
      writeFileSync(join(dir, 'f.txt'), content(lines, step.finalNewline));
    }
    run(dir, 'add', '-A');
    run(dir, 'commit', '-qm', `step ${i}`, '--allow-empty');
    shas.push(run(dir, 'rev-parse', 'HEAD').trim());
  });
  return { dir, shas };
}

const asCached = (rev: string, lines: string[]): CachedBlame => ({ rev, lines, commits: new Map(lines.map((sha) => [sha, { sha, by: 'person', agent: null, sessionId: null, turn: null }])) });

describe('incremental blame', () => {
  afterAll(cleanupTempDirs);

  it('equals git blame at every commit of random linear histories, one step at a time and in one jump', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (input) => {
        const { dir, shas } = buildHistory(input);
        const expected = shas.map((sha) => gitBlameLines(dir, sha));
        let cached = asCached(shas[0]!, expected[0]!);
        for (let i = 1; i < shas.length; i++) {
          const next = await incrementalBlame(dir, 'f.txt', cached, shas[i]!);
          expect(next?.lines).toEqual(expected[i]);
          cached = next!;
        }
        const jump = await incrementalBlame(dir, 'f.txt', asCached(shas[0]!, expected[0]!), shas[shas.length - 1]!);
        expect(jump?.lines).toEqual(expected[expected.length - 1]);
      }),
      { numRuns: 15 },
    );
  }, 240_000);

  it('gives up (null, for a full blame) when the cached commit is not an ancestor, or on a merge', async () => {
    const { dir, shas } = buildHistory({ first: ['a', 'b'], commits: [{ edits: [{ kind: 'insert', at: 1, count: 1, lines: ['c'] }], otherFileOnly: false, finalNewline: true }] });
    const [first, second] = [shas[0]!, shas[1]!];
    // Backwards: the cached blame is the child.
    expect(await incrementalBlame(dir, 'f.txt', asCached(second, gitBlameLines(dir, second)), first)).toBeNull();
    run(dir, 'checkout', '-q', '-b', 'side', first);
    writeFileSync(join(dir, 'g.txt'), 'side\n');
    run(dir, 'add', 'g.txt');
    run(dir, 'commit', '-qm', 'side');
    run(dir, 'checkout', '-q', 'main');
    run(dir, 'merge', '-q', '--no-edit', 'side');
    const merge = run(dir, 'rev-parse', 'HEAD').trim();
    expect(await incrementalBlame(dir, 'f.txt', asCached(first, gitBlameLines(dir, first)), merge)).toBeNull();
  });
});

describe('the -U0 diff parser', () => {
  it('counts hunk lines off by the header, so a removed `-- x` line is not a file header', () => {
    const diff = ['diff --git a/f b/f', 'index 1..2 100644', '--- a/f', '+++ b/f', '@@ -2 +2,2 @@', '--- x', '++++ y', '+z', '\\ No newline at end of file'].join('\n');
    expect(parsePathDiff(diff)).toEqual([{ oldStart: 2, oldCount: 1, newStart: 2, newCount: 2 }]);
  });

  it.each([
    ['a new file', ['diff --git a/f b/f', 'new file mode 100644', '--- /dev/null', '+++ b/f', '@@ -0,0 +1 @@', '+a']],
    ['a deleted file', ['diff --git a/f b/f', 'deleted file mode 100644', '--- a/f', '+++ /dev/null', '@@ -1 +0,0 @@', '-a']],
    ['a binary file', ['diff --git a/f b/f', 'index 1..2 100644', 'Binary files a/f and b/f differ']],
    ['a hunk cut short', ['diff --git a/f b/f', '--- a/f', '+++ b/f', '@@ -1,2 +1 @@', '-a']],
  ])('refuses %s', (_name, rows) => {
    expect(() => parsePathDiff(rows.join('\n'))).toThrow(UnexpectedDiff);
  });

  it('refuses hunks that do not fit the blamed lines', () => {
    expect(() => applyHunks(['x'], [{ oldStart: 2, oldCount: 3, newStart: 2, newCount: 0 }], 'c')).toThrow(UnexpectedDiff);
    expect(applyHunks(['x', 'y', 'z'], [{ oldStart: 1, oldCount: 0, newStart: 2, newCount: 1 }, { oldStart: 3, oldCount: 1, newStart: 3, newCount: 0 }], 'c')).toEqual(['x', 'c', 'y']);
  });
});
