import { join } from 'node:path';
import { SessionStore } from '../../store/index.js';
import type { RepoHeads, VerifyReport } from './ports.js';
import { fsckProblems, headsOf } from './repos.js';
import { userRoots } from './repos.js';

/** fsck runs two at a time: the other core keeps serving the instance's other users. */
const FSCK_CONCURRENCY = 2;

/**
 * Whether a copied user can be trusted on this data directory: the registry equal to every
 * meta.json, `git fsck` clean on every repository, and every head equal to the source's.
 * Opens the store on its own (the instance does not serve the user yet) and closes it again.
 */
export async function verifyUserCopy(dataDir: string, userId: string, expected: RepoHeads, allowedRoots: readonly string[] = []): Promise<VerifyReport> {
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
  const repos = Object.keys(actual);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < repos.length) {
      const repo = repos[next++]!;
      for (const line of await fsckProblems(join(dataDir, repo))) problems.push(`fsck ${repo}: ${line}`);
    }
  };
  await Promise.all(Array.from({ length: FSCK_CONCURRENCY }, worker));
  return { ok: problems.length === 0, sessions, repos: repos.length, problems };
}

function sortedEntries(refs: Record<string, string>): [string, string][] {
  return Object.entries(refs).sort(([a], [b]) => a.localeCompare(b));
}
