import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runGit } from '../../store/index.js';
import type { RepoHeads } from './ports.js';

/** A user's data as it sits in a data directory: the store and the workspace (project folders). */
export function userRoots(dataDir: string, userId: string): { users: string; workspaces: string } {
  return { users: join(dataDir, 'users', userId), workspaces: join(dataDir, 'workspaces', userId) };
}

/** Git repositories under `root` (a directory holding `.git`), not looking inside them, to a bounded depth. */
export function findRepos(root: string, maxDepth = 4): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((entry) => entry.name === '.git' && entry.isDirectory())) {
      found.push(dir);
      return;
    }
    if (depth >= maxDepth) return;
    for (const entry of entries) if (entry.isDirectory() && !entry.isSymbolicLink()) walk(join(dir, entry.name), depth + 1);
  }
  walk(root, 0);
  return found.sort();
}

/** Every ref of one repository → its commit. */
export async function refsOf(repo: string): Promise<Record<string, string>> {
  const { stdout } = await runGit(repo, ['for-each-ref', '--format=%(refname) %(objectname)']);
  const refs: Record<string, string> = {};
  for (const line of stdout.toString('utf8').split('\n')) {
    const [name, sha] = line.split(' ');
    if (name && sha) refs[name] = sha;
  }
  return refs;
}

/** The heads of every repository of a user, keyed by path relative to the data directory (the same on both sides). */
export async function headsOf(dataDir: string, userId: string): Promise<RepoHeads> {
  const roots = userRoots(dataDir, userId);
  const heads: RepoHeads = {};
  for (const repo of [...findRepos(join(roots.users, 'sessions')), ...findRepos(roots.workspaces)]) {
    heads[relative(dataDir, repo)] = await refsOf(repo);
  }
  return heads;
}

/** `git fsck`'s complaints about one repository (none: clean). */
export async function fsckProblems(repo: string): Promise<string[]> {
  const result = await runGit(repo, ['fsck', '--no-progress', '--no-dangling'], { okCodes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 128] });
  const lines = `${result.stdout.toString('utf8')}\n${result.stderr}`.split('\n').map((line) => line.trim()).filter(Boolean);
  if (result.code !== 0 && lines.length === 0) lines.push(`git fsck exited with ${result.code}`);
  return result.code === 0 ? lines.filter((line) => /^(error|fatal|missing|broken)/i.test(line)) : lines;
}
