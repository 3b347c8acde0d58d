/**
 * The pure half of incremental blame (blame-cache.ts): the `-U0` diffs of the commits after a
 * blamed one, applied hunk by hunk to its per-line commits. Anything this parser does not expect
 * (a binary file, a file created, deleted or renamed, a line count that does not add up) throws
 * UnexpectedDiff, and the caller runs the full `git blame` instead.
 */

export class UnexpectedDiff extends Error {}

export interface DiffHunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** One commit of `git log -p -U0 -- <path>` for one path: its parents and its hunks (none when it did not touch the path). */
export interface PathCommitDiff {
  sha: string;
  parents: string[];
  hunks: DiffHunk[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
/** Header lines of a plain modification of one file; `old mode`/`new mode` (an exec bit) leave the lines alone. */
const PLAIN_HEADER = /^(diff --git |index |--- |\+\+\+ |old mode |new mode )/;

/**
 * The diff part of one commit's record: header lines, then hunks whose `-`/`+` lines are
 * counted off by the hunk header (so a removed line that reads `-- x` is never a header).
 */
export function parsePathDiff(text: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  const rows = text.split('\n');
  let files = 0;
  let body = 0;
  for (const row of rows) {
    if (body > 0) {
      if (row.startsWith('\\')) continue;
      if (!row.startsWith('-') && !row.startsWith('+')) throw new UnexpectedDiff(`diff line outside a hunk's count: ${row.slice(0, 40)}`);
      body--;
      continue;
    }
    if (row.startsWith('\\') || row === '') continue;
    const hunk = HUNK_HEADER.exec(row);
    if (hunk) {
      const parsed = { oldStart: Number(hunk[1]), oldCount: hunk[2] === undefined ? 1 : Number(hunk[2]), newStart: Number(hunk[3]), newCount: hunk[4] === undefined ? 1 : Number(hunk[4]) };
      hunks.push(parsed);
      body = parsed.oldCount + parsed.newCount;
      continue;
    }
    if (!PLAIN_HEADER.test(row)) throw new UnexpectedDiff(`not a plain change of one file: ${row.slice(0, 40)}`);
    if (row.startsWith('diff --git ') && ++files > 1) throw new UnexpectedDiff('the diff names more than one file');
    if (row === '--- /dev/null' || row === '+++ /dev/null') throw new UnexpectedDiff('the file was created or deleted');
  }
  if (body > 0) throw new UnexpectedDiff('the diff ends inside a hunk');
  return hunks;
}

/**
 * The blame after one commit: lines its hunks left alone keep their commit (shifted), the
 * lines it added are its own. `lines` holds each line's commit, first line first.
 */
export function applyHunks(lines: readonly string[], hunks: readonly DiffHunk[], sha: string): string[] {
  const out: string[] = [];
  let kept = 0;
  for (const hunk of hunks) {
    // `-a,0` inserts after old line a; `-a,n` replaces old lines a..a+n-1.
    const unchangedBefore = hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1;
    if (unchangedBefore < kept || unchangedBefore + hunk.oldCount > lines.length) throw new UnexpectedDiff('a hunk outside the blamed lines');
    while (kept < unchangedBefore) out.push(lines[kept++]!);
    kept += hunk.oldCount;
    if (out.length !== (hunk.newCount === 0 ? hunk.newStart : hunk.newStart - 1)) throw new UnexpectedDiff('a hunk whose new side does not line up');
    for (let i = 0; i < hunk.newCount; i++) out.push(sha);
  }
  while (kept < lines.length) out.push(lines[kept++]!);
  return out;
}

/**
 * The blame at the last of `commits` from the blame at `base`: every commit must be a
 * single-parent child of the one before it (of `base` for the first), else UnexpectedDiff.
 */
export function advanceBlame(base: { rev: string; lines: readonly string[] }, commits: readonly PathCommitDiff[]): string[] {
  let lines: readonly string[] = base.lines;
  let previous = base.rev;
  for (const commit of commits) {
    if (commit.parents.length !== 1 || commit.parents[0] !== previous) throw new UnexpectedDiff(`${commit.sha.slice(0, 12)} is not the single-parent child of ${previous.slice(0, 12)}`);
    if (commit.hunks.length > 0) lines = applyHunks(lines, commit.hunks, commit.sha);
    previous = commit.sha;
  }
  return [...lines];
}
