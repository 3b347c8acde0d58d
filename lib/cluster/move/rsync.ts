import { spawn } from 'node:child_process';
import { MoveError } from './ports.js';

/** The parents of a user's folders under a data directory, as rsync names them (a path or host:path). */
function parents(dataDir: string): string[] {
  const base = dataDir.endsWith('/') ? dataDir.slice(0, -1) : dataDir;
  return [`${base}/users/`, `${base}/workspaces/`];
}

/** What a copy changed on the target. */
export interface CopyReport {
  /**
   * The repositories (keys as in headsOf: the path relative to the data directory) in which the
   * copy wrote or deleted a file under `.git`; only the final copy reports them.
   */
  changedRepos: string[];
}

/**
 * Make the target's copy of one user equal to the source's (`rsync -a --delete`): a pre-copy
 * while the user still writes, then, frozen, a final one in two passes.
 * - The first compares size and mtime (to the nanosecond: NANOSECOND_MTIMES). It is all that git's
 *   objects need (named by their content, never rewritten), which are most of the bytes: the
 *   final copy once compared every file's contents (`--checksum`), 7 s of the freeze for 1,000
 *   sessions.
 * - The second compares contents (`--checksum`) of every other file: meta.json is rewritten in
 *   place at a padded, often equal size, and project files, refs and git's index are written by
 *   agents, editors and git. File times move in clock ticks of a few ms, so a write just after
 *   the pre-copy read a file can leave the same size and the same mtime: only the contents tell.
 * Both list what they transferred or deleted (`--out-format`), so the verify need only fsck those
 * repositories again (engine.ts). The parent is copied through a filter of the user's folder
 * alone, so a user who has no folder yet (never signed in) copies as nothing, and a stale copy on
 * the target is removed. The two parents are copied one after the other: a failed copy leaves no
 * other rsync writing behind it (a roll-back removes the target's copy next).
 */
/**
 * rsync's quick check compares whole seconds unless told otherwise (`--modify-window` 0): a ref
 * (always 41 bytes) updated within the second of its pre-copy would be skipped. -1 compares
 * nanoseconds too (a receiver of 3.1.3 or later).
 */
const NANOSECOND_MTIMES = '--modify-window=-1';
/** Files git names by their content and never rewrites: loose objects, packs and their indexes. */
const CONTENT_NAMED = ['--exclude=.git/objects/[0-9a-f][0-9a-f]/', '--exclude=.git/objects/pack/'];

export async function rsyncUser(sourceDataDir: string, targetDataDir: string, userId: string, options: { final: boolean }): Promise<CopyReport> {
  const sources = parents(sourceDataDir);
  const targets = parents(targetDataDir);
  const changed = new Set<string>();
  const userOnly = [`--include=/${userId}/***`, '--exclude=*'];
  // %i: what rsync did (`>f+++++++++` sent, `*deleting  ` removed; 11 characters), %n: the name
  const listing = options.final ? ['--out-format=%i %n'] : [];
  for (const [i, source] of sources.entries()) {
    const passes = [['--delete', ...userOnly]];
    if (options.final) passes.push(['--checksum', ...CONTENT_NAMED, ...userOnly]);
    for (const pass of passes) {
      const lines = await run(['-a', '--mkpath', NANOSECOND_MTIMES, ...listing, ...pass, source, targets[i]!], options.final);
      for (const line of lines) {
        const repo = repoOfCopiedPath(PARENTS[i]!, unescapeRsyncName(line.slice(12)));
        if (repo) changed.add(repo);
      }
    }
  }
  return { changedRepos: [...changed].sort() };
}

const PARENTS = ['users', 'workspaces'] as const;

/**
 * The repository a copied path belongs to (`users/<id>/sessions/<sid>` for
 * `<id>/sessions/<sid>/.git/objects/ab/cd` under users/), or null for a path outside any `.git`
 * (a working-tree file, meta.json): fsck and the heads read only `.git`.
 */
export function repoOfCopiedPath(parent: string, name: string): string | null {
  const parts = name.replace(/\/$/, '').split('/');
  const dotGit = parts.indexOf('.git');
  if (dotGit <= 0) return null;
  return [parent, ...parts.slice(0, dotGit)].join('/');
}

/** rsync writes a byte it will not print (a newline, non-ASCII without -8) as `\#ooo`. */
export function unescapeRsyncName(name: string): string {
  if (!name.includes('\\#')) return name;
  const bytes: number[] = [];
  for (let i = 0; i < name.length; ) {
    const escape = /^\\#([0-7]{3})/.exec(name.slice(i, i + 5));
    if (escape) {
      bytes.push(parseInt(escape[1]!, 8));
      i += 5;
    } else {
      bytes.push(...Buffer.from(name[i]!, 'utf8'));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Runs rsync; its output lines when `listing` (else its output is not read). */
function run(args: string[], listing: boolean): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn('rsync', args, { stdio: ['ignore', listing ? 'pipe' : 'ignore', 'pipe'] });
    } catch (error) {
      reject(new MoveError(`rsync could not start: ${(error as Error).message}`));
      return;
    }
    let stderr = '';
    const stdout: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(new MoveError(error.code === 'ENOENT' ? 'rsync is not installed (apt-get install -y rsync)' : `rsync failed: ${error.message}`)),
    );
    child.on('close', (code) => {
      // 24: files vanished while copying (a live pre-copy); the final copy runs frozen.
      if (code === 0 || code === 24) resolve(Buffer.concat(stdout).toString('utf8').split('\n').filter((line) => line.length > 12));
      else reject(new MoveError(`rsync ${args.slice(-2).join(' → ')} failed (${code}): ${stderr.trim().split('\n').slice(-3).join(' ')}`));
    });
  });
}
