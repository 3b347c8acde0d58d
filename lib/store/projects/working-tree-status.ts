import { runGit, splitNul } from '../git/git-cli.js';

/** What `git status` says of a project: HEAD, the dirty paths, and whether a merge conflict is open. */
export interface WorkingTreeStatus {
  head: string | null;
  dirty: Set<string>;
  conflicted: boolean;
}

/**
 * `git status --porcelain=v2 -z --branch`: v2 rather than v1 because it carries HEAD in the same
 * process. Renames are off, so a moved file shows as its deletion and its new path.
 */
export async function readWorkingTreeStatus(projectPath: string, untracked: 'all' | 'no' = 'all'): Promise<WorkingTreeStatus> {
  const { stdout } = await runGit(projectPath, [
    'status', '--porcelain=v2', '-z', '--branch', `--untracked-files=${untracked}`, '--no-renames',
  ]);
  const fields = splitNul(stdout);
  const dirty = new Set<string>();
  let head: string | null = null;
  let conflicted = false;
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] ?? '';
    const kind = entry[0];
    if (kind === '#') {
      const match = /^# branch\.oid (\S+)/.exec(entry);
      if (match?.[1] && match[1] !== '(initial)') head = match[1];
    } else if (kind === '1') {
      dirty.add(fieldAfter(entry, 8));
    } else if (kind === '2') {
      dirty.add(fieldAfter(entry, 9));
      const orig = fields[++i];
      if (orig) dirty.add(orig);
    } else if (kind === 'u') {
      conflicted = true;
      dirty.add(fieldAfter(entry, 10));
    } else if (kind === '?') {
      dirty.add(entry.slice(2));
    }
  }
  return { head, dirty, conflicted };
}

/** The text after the n-th space (paths may themselves contain spaces). */
export function fieldAfter(entry: string, n: number): string {
  let at = -1;
  for (let k = 0; k < n; k++) {
    at = entry.indexOf(' ', at + 1);
    if (at < 0) return '';
  }
  return entry.slice(at + 1);
}
