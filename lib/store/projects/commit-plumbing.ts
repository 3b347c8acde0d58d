import { randomBytes } from 'node:crypto';
import { linkSync, renameSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { copyFile, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileSignature, fileSignatureSync } from '../../fs/file-signature.js';
import { processAlive } from '../../process/process-alive.js';
import { ConflictError } from '../errors.js';
import { cleanCommitMessage } from '../text.js';
import { GitCommandError, runGit, splitNul } from '../git/git-cli.js';
import { nowSeconds } from '../time.js';
import type { GitDirs } from '../git/repo-safety.js';
import { updateHeadInProcess } from './ref-update.js';

/**
 * Commits in a user's repository built with plumbing, so the user's own index is never the
 * staging area: a temporary index file gets the agent's paths, `write-tree` and `commit-tree`
 * make the commit, `update-ref` moves HEAD only if it did not move meanwhile, and afterwards
 * only the committed paths are brought up to date in the real index.
 */

export interface Ident {
  name: string;
  email: string;
}

export interface HeadState {
  /** The commit HEAD points to, or null on an unborn branch (a repo with no commits). */
  head: string | null;
  tree: string | null;
}

export async function readHead(cwd: string): Promise<HeadState> {
  const res = await runGit(cwd, ['rev-parse', 'HEAD^{commit}', 'HEAD^{tree}'], { okCodes: [0, 128] });
  if (res.code === 0) {
    const [head, tree] = res.stdout.toString('utf8').trim().split('\n');
    if (head && tree) return { head, tree };
  }
  // Distinguish an unborn HEAD (fine) from a broken repository (not fine).
  const ref = await runGit(cwd, ['rev-parse', '-q', '--verify', 'HEAD'], { okCodes: [0, 1] });
  if (ref.code === 1) return { head: null, tree: null };
  throw new GitCommandError(['rev-parse', 'HEAD'], res.code, res.stderr);
}

const OID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * HEAD's commit read from the ref files, saving a process per turn (spawning git from a large
 * server process is the dominant cost of a commit). Anything unusual (a symbolic ref outside
 * refs/heads, reftable, a peeled or odd packed-refs line) falls back to `git rev-parse`; the
 * compare-and-swap in moveHead catches a wrong answer either way.
 */
export async function readHeadCommit(cwd: string, dirs: { gitDir: string; commonDir: string }): Promise<string | null> {
  try {
    const headText = (await readFile(join(dirs.gitDir, 'HEAD'), 'utf8')).trim();
    if (OID.test(headText)) return headText;
    const match = /^ref: (refs\/heads\/[^\s]+)$/.exec(headText);
    if (match?.[1] && !match[1].includes('..') && !match[1].endsWith('.invalid')) {
      const ref = match[1];
      const loose = await readFile(join(dirs.commonDir, ref), 'utf8').then((t) => t.trim(), () => null);
      if (loose !== null) {
        if (OID.test(loose)) return loose;
      } else {
        const packed = await readFile(join(dirs.commonDir, 'packed-refs'), 'utf8').catch(() => '');
        let found: string | null = null;
        for (const line of packed.split('\n')) {
          if (line.endsWith(` ${ref}`)) found = line.slice(0, line.indexOf(' '));
        }
        if (found === null) return null;
        if (OID.test(found)) return found;
      }
    }
  } catch {
    // fall through
  }
  return (await readHead(cwd)).head;
}

export interface TempIndex {
  /** The private index file (GIT_INDEX_FILE). */
  file: string;
  /** Identity of the real index when it was copied (null: not seeded, or there was none). */
  seededFrom: string | null;
}

/**
 * A private index file inside the git directory, optionally seeded with a copy of the real one:
 * its stat data spares git add from re-hashing unchanged files, and its cache-tree spares
 * write-tree from rebuilding unchanged directories.
 */
export async function withTempIndex<T>(
  gitDir: string,
  seedFromRealIndex: boolean,
  fn: (index: TempIndex) => Promise<T>,
): Promise<T> {
  await clearStaleIndexLock(gitDir);
  const file = join(gitDir, `${TEMP_INDEX_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    let seededFrom: string | null = null;
    if (seedFromRealIndex) {
      const real = join(gitDir, 'index');
      const before = await fileSignature(real);
      const copied = await copyFile(real, file).then(() => true, () => false);
      if (copied && before !== null && before === (await fileSignature(real))) seededFrom = before;
    }
    return await fn({ file, seededFrom });
  } finally {
    await rm(file, { force: true });
    await rm(`${file}.lock`, { force: true });
  }
}

/**
 * Make the private index the real one, when it is exactly "the real index plus the commit":
 * seeded from the real index, which has not changed since (checked while holding git's own
 * `index.lock`), and not a split index. Saves a process and a rewrite of the real index, and
 * keeps its cache-tree valid so the next write-tree stays fast. False: nothing was done.
 */
export async function installTempIndex(gitDir: string, index: TempIndex): Promise<boolean> {
  if (!index.seededFrom) return false;
  const real = join(gitDir, 'index');
  const lock = `${real}.lock`;
  const entries = await readdir(gitDir).catch(() => [] as string[]);
  if (entries.some((name) => name.startsWith('sharedindex.'))) return false;
  // Git's lock is taken as a hard link to the private index, and held only within this tick (no
  // await until it is renamed or removed). A process killed while holding it (the crash test
  // SIGKILLs the server) leaves a lock that is the same file as a dead process's private index:
  // clearStaleIndexLock knows it for ours. An empty lock made first and renamed over later, as
  // before, stayed behind for good and blocked the user's own git ("index.lock: File exists").
  try {
    linkSync(index.file, lock);
  } catch {
    return false; // the user's git is busy with the index (or no hard links here): syncIndexEntries instead
  }
  try {
    if (fileSignatureSync(real) !== index.seededFrom) {
      unlinkSync(lock);
      return false;
    }
    renameSync(lock, real);
    return true;
  } catch {
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
    return false;
  }
}

const TEMP_INDEX_PREFIX = 'openprogram-index-';
const TEMP_INDEX = /^openprogram-index-(\d+)-[0-9a-f]{8}$/;

/** When this process started (ms): a file of its pid that is older is an earlier process's. */
const PROCESS_STARTED_AT = Date.now() - process.uptime() * 1000;

function sameFile(a: Stats | null, b: Stats | null): boolean {
  return a !== null && b !== null && a.ino === b.ino && a.dev === b.dev;
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/**
 * What a process killed mid-commit left in a git directory: its private index files and, when
 * it died holding git's lock, an `index.lock` that is a hard link to one of them. Only files of
 * a process that no longer runs are touched: its pid is gone, or it is this process's own pid
 * on a file older than this process (a restarted container hands the server the same pid). A
 * lock goes only when it is that very file, checked and removed in one tick, so a lock the
 * user's git holds (or takes meanwhile) is never removed. Run before each commit here and at start-up.
 */
export async function clearStaleIndexLock(gitDir: string): Promise<void> {
  const names = await readdir(gitDir).catch(() => [] as string[]);
  const lock = join(gitDir, 'index.lock');
  for (const name of names) {
    const pid = Number(TEMP_INDEX.exec(name)?.[1] ?? NaN);
    if (!Number.isInteger(pid)) continue;
    const file = join(gitDir, name);
    const ours = statOrNull(file);
    if (!ours) continue;
    const stale = pid === process.pid ? ours.mtimeMs < PROCESS_STARTED_AT : !processAlive(pid);
    if (!stale) continue;
    if (sameFile(ours, statOrNull(lock))) {
      try {
        unlinkSync(lock);
      } catch {
        // gone meanwhile
      }
    }
    await rm(file, { force: true });
    await rm(`${file}.lock`, { force: true });
  }
}

/**
 * `--missing-ok` skips checking that every blob of a rebuilt directory exists (thousands of
 * object lookups in a big repo); the entries come from git's own index and git add, which wrote them.
 */
export async function writeTree(cwd: string, indexFile: string): Promise<string> {
  const { stdout } = await runGit(cwd, ['write-tree', '--missing-ok'], { env: { GIT_INDEX_FILE: indexFile } });
  return stdout.toString('utf8').trim();
}

export interface CommitSpec {
  tree: string;
  parent: string | null;
  message: string;
  author: Ident;
  committer: Ident;
  /** Seconds since the epoch; defaults to now. */
  time?: number;
}

export async function commitTree(cwd: string, spec: CommitSpec): Promise<string> {
  const date = `${Math.floor(spec.time ?? nowSeconds())} +0000`;
  const args = ['commit-tree', spec.tree, '--no-gpg-sign'];
  if (spec.parent) args.push('-p', spec.parent);
  args.push('-F', '-');
  const { stdout } = await runGit(cwd, args, {
    // git refuses a NUL in a message; other control characters it would store as they are.
    input: cleanCommitMessage(spec.message),
    env: {
      GIT_AUTHOR_NAME: spec.author.name,
      GIT_AUTHOR_EMAIL: spec.author.email,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: spec.committer.name,
      GIT_COMMITTER_EMAIL: spec.committer.email,
      GIT_COMMITTER_DATE: date,
    },
  });
  return stdout.toString('utf8').trim();
}

/**
 * Move HEAD (or the branch it names) from `expected` to `next`; ConflictError when it moved
 * meanwhile. `inProcess`: who makes the update, so the common case is done without git.
 */
export async function moveHead(
  cwd: string,
  next: string | null,
  expected: string | null,
  reflog: string,
  inProcess?: { dirs: GitDirs; who: Ident; seconds: number },
): Promise<void> {
  if (next && inProcess && updateHeadInProcess(inProcess.dirs, next, expected, reflog, inProcess.who, inProcess.seconds) === 'done') return;
  const zero = '0'.repeat((next ?? expected ?? '').length || 40);
  const args = next
    ? ['update-ref', '-m', reflog, 'HEAD', next, expected ?? zero]
    : ['update-ref', '-m', reflog, '-d', 'HEAD', expected ?? zero];
  try {
    await runGit(cwd, args);
  } catch (error) {
    if (error instanceof GitCommandError) {
      throw new ConflictError(`the project's HEAD moved while OpenProgram was updating it; nothing was changed (${error.stderr.trim()})`);
    }
    throw error;
  }
}

export interface ChangedEntry {
  path: string;
  status: string;
  oldMode: string;
  oldSha: string;
  newMode: string;
  newSha: string;
}

/** Parse `--raw -z` output: `:oldmode newmode oldsha newsha status\0path\0`…. */
function parseRaw(stdout: Buffer): ChangedEntry[] {
  const fields = splitNul(stdout);
  const out: ChangedEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = (fields[i] ?? '').replace(/^:/, '').split(' ');
    out.push({
      path: fields[i + 1] ?? '',
      oldMode: meta[0] ?? '000000',
      newMode: meta[1] ?? '000000',
      oldSha: meta[2] ?? '',
      newSha: meta[3] ?? '',
      status: meta[4] ?? '',
    });
  }
  return out;
}

/** How the index differs from HEAD (or, for an unborn branch, every entry as an addition). */
export async function stagedChanges(cwd: string, head: string | null, indexFile?: string): Promise<ChangedEntry[]> {
  const env = indexFile ? { GIT_INDEX_FILE: indexFile } : undefined;
  if (head) {
    const { stdout } = await runGit(cwd, ['diff-index', '--cached', '--raw', '-z', '--no-renames', '--full-index', head], env ? { env } : {});
    return parseRaw(stdout);
  }
  const { stdout } = await runGit(cwd, ['ls-files', '-s', '-z'], env ? { env } : {});
  return splitNul(stdout).map((line) => {
    // `mode sha stage\tpath`
    const tab = line.indexOf('\t');
    const [mode = '', sha = ''] = line.slice(0, tab).split(' ');
    return { path: line.slice(tab + 1), status: 'A', oldMode: '000000', oldSha: '0'.repeat(sha.length), newMode: mode, newSha: sha };
  });
}

/** Files that differ between two commits (`from` null: everything in `to`). */
export async function changedBetween(cwd: string, from: string | null, to: string): Promise<ChangedEntry[]> {
  const args = ['diff-tree', '-r', '-z', '--raw', '--no-renames', '--no-commit-id', '--full-index'];
  if (from) args.push(from, to);
  else args.push('--root', to);
  const { stdout } = await runGit(cwd, args);
  return parseRaw(stdout);
}

/** `mode sha\tpath` lines for `update-index --index-info`; mode 0 removes the entry. */
function indexInfo(entries: ReadonlyArray<{ path: string; mode: string; sha: string }>): string {
  return entries
    .map((e) => (/^0+$/.test(e.mode) ? `0 ${'0'.repeat(e.sha.length || 40)}\t${e.path}\0` : `${e.mode} ${e.sha}\t${e.path}\0`))
    .join('');
}

/** Put entries back to what HEAD has (the "old" side of a diff against HEAD), in a private index. */
export async function revertIndexEntries(cwd: string, indexFile: string, entries: readonly ChangedEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await runGit(cwd, ['update-index', '-z', '--index-info'], {
    env: { GIT_INDEX_FILE: indexFile },
    input: indexInfo(entries.map((e) => ({ path: e.path, mode: e.oldMode, sha: e.oldSha }))),
  });
}

/**
 * Make the real index agree with the new commit for exactly these entries (the "new" side),
 * leaving every other entry, staged or not, as the user had it. Retries briefly when the
 * user's own git holds the index lock; answers false when it never got it (the commit stands).
 */
export async function syncIndexEntries(cwd: string, entries: readonly ChangedEntry[]): Promise<boolean> {
  if (entries.length === 0) return true;
  const input = indexInfo(entries.map((e) => ({ path: e.path, mode: e.newMode, sha: e.newSha })));
  for (let attempt = 0; attempt < 10; attempt++) {
    try {
      await runGit(cwd, ['update-index', '-z', '--index-info'], { input });
      return true;
    } catch (error) {
      if (!(error instanceof GitCommandError) || !/index\.lock/.test(error.stderr)) throw error;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  return false;
}
