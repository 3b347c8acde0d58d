import * as fs from 'node:fs';
import git from 'isomorphic-git';
import { gitdirOf, readCommitObject, writeRefFile } from './session-git.js';
import { countFirstParent } from './turn-log.js';

export interface RawCommit {
  sha: string;
  message: string;
  timestamp: number;
  parents: string[];
  tree: string;
}

/** Newest first, from `start` (default HEAD), bounded: isomorphic-git's log always needs a depth. */
export async function readCommits(repoDir: string, limit: number, start?: string): Promise<RawCommit[]> {
  try {
    const entries = await git.log({ fs, dir: repoDir, ref: start ?? 'HEAD', depth: limit });
    return entries.map((entry) => ({
      sha: entry.oid,
      message: entry.commit.message.replace(/\n$/, ''),
      timestamp: entry.commit.committer.timestamp,
      parents: entry.commit.parent,
      tree: entry.commit.tree,
    }));
  } catch {
    return [];
  }
}

/** Count of commits reachable from HEAD (first-parent), for repos that never recorded turn_count. */
export async function countCommits(repoDir: string, head: string | null): Promise<number> {
  // git counts a packed line of thousands in milliseconds; walking it here costs seconds.
  if (head) {
    const counted = await countFirstParent(repoDir, head).catch(() => null);
    if (counted !== null) return counted;
  }
  let count = 0;
  let oid = head;
  while (oid) {
    count++;
    try {
      const commit = await readCommitObject(repoDir, oid);
      oid = commit.parents[0] ?? null;
    } catch {
      break;
    }
  }
  return count;
}

export async function readBlobAt(repoDir: string, rootTree: string, path: string): Promise<Buffer | null> {
  try {
    const { blob } = await git.readBlob({ fs, dir: repoDir, oid: rootTree, filepath: path });
    return Buffer.from(blob);
  } catch {
    return null;
  }
}

// One path segment git accepts as a branch name (git-check-ref-format), from the characters node ids use.
const BRANCH_NAME = /^(?!\.)(?!.*\.\.)(?!.*\.lock$)[A-Za-z0-9._-]+$/;

export async function writeBranchRef(repoDir: string, name: string, sha: string): Promise<void> {
  if (!BRANCH_NAME.test(name)) throw new Error(`not a branch name: ${JSON.stringify(name)}`);
  await writeRefFile(gitdirOf(repoDir), `refs/heads/${name}`, sha);
}

export async function listBranchRefs(repoDir: string): Promise<string[]> {
  try {
    return await git.listBranches({ fs, dir: repoDir });
  } catch {
    return [];
  }
}
