import { readFileSync } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { differingEntries, indexLayout, type IndexEntry, type IndexLayout } from '../git/index-file.js';
import type { GitDirs } from '../git/repo-safety.js';
import { commitIndex, skipped, type CommitRequest, type FinishProjectTurnResult } from './auto-commit.js';
import { revertIndexEntries, withTempIndex, type ChangedEntry } from './commit-plumbing.js';
import { stageInto } from './stage-paths.js';

/**
 * An agent's exchange committed with two git processes (DESIGN §14's agent_project_commit_p50_ms,
 * where each process started from the server costs more than its work): `git add -A` into a
 * copy of the user's index, which walks the tree once, then `write-tree`. What changed is read
 * by comparing the two index files here, not by a `git status` beforehand. That the user
 * staged nothing is read from the copy's cache-tree: when its root is valid and is HEAD's tree,
 * the index holds exactly HEAD (git keeps the cache-tree in step with every entry it changes).
 * When that cannot be told (no valid cache-tree after a `git add`, HEAD's commit packed, an
 * index layout not read here), null: the caller takes the `git status` path, which says why.
 */

const SHA1 = /^[0-9a-f]{40}$/;

/** HEAD's tree, when its commit is a loose SHA-1 object (ours always are); null otherwise. */
export function looseCommitTree(commonDir: string, commit: string): string | null {
  if (!SHA1.test(commit)) return null;
  let raw: Buffer;
  try {
    raw = inflateSync(readFileSync(join(commonDir, 'objects', commit.slice(0, 2), commit.slice(2))));
  } catch {
    return null;
  }
  const body = raw.subarray(raw.indexOf(0) + 1);
  if (!raw.subarray(0, 7).equals(Buffer.from('commit '))) return null;
  const match = /^tree ([0-9a-f]{40})\n/.exec(body.toString('latin1', 0, 46));
  return match?.[1] ?? null;
}

const HEX_ZERO = '0'.repeat(40);

function modeText(entry: IndexEntry | undefined): string {
  return entry ? entry.mode.toString(8).padStart(6, '0') : '000000';
}

function changeOf(path: Buffer, before: IndexEntry | undefined, after: IndexEntry | undefined): ChangedEntry {
  return {
    path: path.toString('utf8'),
    status: !before ? 'A' : !after ? 'D' : 'M',
    oldMode: modeText(before),
    oldSha: before ? before.oid.toString('hex') : HEX_ZERO,
    newMode: modeText(after),
    newSha: after ? after.oid.toString('hex') : HEX_ZERO,
  };
}

/** What differs between two indexes (stage 0, formats 2 and 3), as diff-index names it. */
export function indexChanges(before: IndexLayout, after: IndexLayout): ChangedEntry[] {
  return differingEntries(before, after).map(([a, b]) => changeOf((a ?? b)!.path, a, b));
}

/**
 * Commit whatever the working tree holds that HEAD does not, leaving out files written after
 * `writtenBefore` (ms; the tools of the answer being recorded, committed with the next
 * exchange). null: not decided here (see above); nothing was changed then.
 */
export async function commitWorkingTreeByAdd(
  real: string,
  dirs: GitDirs,
  head: string,
  request: CommitRequest,
  writtenBefore: number | undefined,
): Promise<FinishProjectTurnResult | null> {
  const headTree = looseCommitTree(dirs.commonDir, head);
  if (!headTree) return null;
  return withTempIndex(dirs.gitDir, true, async (temp) => {
    if (!temp.seededFrom) return null;
    // The user staged nothing: the copy's cache-tree is valid and is HEAD's tree, no conflict entry.
    const before = indexLayout(await readFile(temp.file));
    if (!before || before.unusual || before.rootTree !== headTree) return null;
    await stageInto(real, temp.file, null, join(dirs.gitDir, 'index'));
    const after = indexLayout(await readFile(temp.file));
    if (!after || after.unusual) return null;
    let changes = indexChanges(before, after);
    if (writtenBefore !== undefined) {
      const late: ChangedEntry[] = [];
      for (const change of changes) {
        if (change.status === 'D') continue; // a deletion carries no time
        const info = await lstat(join(real, change.path)).catch(() => null);
        if (info && info.mtimeMs > writtenBefore) late.push(change);
      }
      if (late.length > 0) {
        // Back to the user's entries: the private index still lacks nothing the real one has.
        await revertIndexEntries(real, temp.file, late);
        changes = changes.filter((c) => !late.includes(c));
      }
    }
    if (changes.length === 0) return skipped('nothing_to_commit', 'no file changes to commit');
    const { sha, indexUpdated } = await commitIndex(real, dirs, temp, head, request, async () => changes);
    return { sha, skipped: null, paths: changes.map((c) => c.path), ignoredPaths: [], indexUpdated, parent: head };
  });
}
