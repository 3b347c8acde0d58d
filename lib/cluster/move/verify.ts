import { join, relative } from 'node:path';
import { SessionStore } from '../../store/index.js';
import type { RepoHeads, VerifyReport } from './ports.js';
import { findRepos, fsckProblems, headsOf } from './repos.js';
import { userRoots } from './repos.js';

/** fsck runs two at a time: the other core keeps serving the instance's other users. */
const FSCK_CONCURRENCY = 2;

/**
 * `git fsck` of the user's repositories (all, or those `only` names), FSCK_CONCURRENCY at a
 * time: the repositories (keys as in headsOf) and the problems of each one that has any.
 */
export async function fsckUserRepos(dataDir: string, userId: string, only?: (repo: string) => boolean): Promise<{ repos: string[]; fscked: number; problems: Map<string, string[]> }> {
  const repos = Object.keys(repoKeys(dataDir, userId));
  const queue = only ? repos.filter(only) : repos;
  const problems = new Map<string, string[]>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) {
      const repo = queue[next++]!;
      const found = await fsckProblems(join(dataDir, repo));
      if (found.length > 0) problems.set(repo, found);
    }
  };
  await Promise.all(Array.from({ length: FSCK_CONCURRENCY }, worker));
  return { repos, fscked: queue.length, problems };
}

function repoKeys(dataDir: string, userId: string): Record<string, true> {
  const roots = userRoots(dataDir, userId);
  return Object.fromEntries([...findRepos(join(roots.users, 'sessions')), ...findRepos(roots.workspaces)].map((repo) => [relative(dataDir, repo), true as const]));
}

/**
 * Whether a copied user can be trusted on this data directory: the registry equal to every
 * meta.json, `git fsck` clean on every repository (but those in `fsckSkip`, clean when the
 * pre-copy was checked and not written since), and every head equal to the source's.
 * Opens the store on its own (the instance does not serve the user yet) and closes it again.
 */
export async function verifyUserCopy(dataDir: string, userId: string, expected: RepoHeads, allowedRoots: readonly string[] = [], options: { fsckSkip?: readonly string[] | undefined } = {}): Promise<VerifyReport> {
  const roots = userRoots(dataDir, userId);
  const problems: string[] = [];
  const store = await SessionStore.open({ stateDir: roots.users, workspaceRoot: roots.workspaces, allowedRoots: [...allowedRoots] });
  let sessions = 0;
  try {
    const check = await store.checkRegistry();
    sessions = check.sessions;
    for (const id of check.missing) problems.push(`registry: session ${id} has a meta.json but no row`);
    for (const id of check.extra) problems.push(`registry: session ${id} has a row but no meta.json`);
    for (const id of check.different) problems.push(`registry: session ${id} differs from its meta.json`);
  } finally {
    await store.close();
  }
  const actual = await headsOf(dataDir, userId);
  for (const repo of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const want = expected[repo];
    const have = actual[repo];
    if (!want) problems.push(`heads: ${repo} is on the target only`);
    else if (!have) problems.push(`heads: ${repo} is missing on the target`);
    else if (JSON.stringify(sortedEntries(want)) !== JSON.stringify(sortedEntries(have))) problems.push(`heads: ${repo} differs from the source`);
  }
  const skip = new Set(options.fsckSkip ?? []);
  const fsck = await fsckUserRepos(dataDir, userId, (repo) => !skip.has(repo));
  for (const [repo, lines] of [...fsck.problems].sort(([a], [b]) => a.localeCompare(b))) for (const line of lines) problems.push(`fsck ${repo}: ${line}`);
  return { ok: problems.length === 0, sessions, repos: Object.keys(actual).length, fscked: fsck.fscked, problems };
}

function sortedEntries(refs: Record<string, string>): [string, string][] {
  return Object.entries(refs).sort(([a], [b]) => a.localeCompare(b));
}
