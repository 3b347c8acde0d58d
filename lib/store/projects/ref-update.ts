import { randomBytes } from 'node:crypto';
import { appendFileSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { processAlive } from '../../process/process-alive.js';
import { ConflictError } from '../errors.js';
import type { GitDirs } from '../git/repo-safety.js';

/**
 * `git update-ref -m <msg> HEAD <new> <old>` done here for the common case (DESIGN §14's
 * agent_project_commit_p50_ms: starting a git process from the server costs more than the
 * update). It follows git's files backend: `HEAD.lock` and `refs/heads/<branch>.lock` are
 * taken with O_EXCL semantics, so the user's git and this exclude each other; the branch's
 * current value (loose, else packed-refs) must be `expected`; both reflogs get git's line; the
 * branch's lock is renamed over the ref. Both locks are hard links to one private file named
 * with this process's pid, made and removed within one tick, so a lock left by a process killed
 * in between is known for ours (clearStaleRefLocks) and never blocks the user's git for good.
 * Anything else (reftable, a detached or unusual HEAD, a symbolic branch, a reflog git would
 * have to decide to create, SHA-256) answers 'unsupported' and the caller runs git.
 */

export interface ReflogIdent {
  name: string;
  email: string;
}

const SHA1 = /^[0-9a-f]{40}$/;
const ZERO = '0'.repeat(40);
/** Branch names git accepts that need no further thought; anything else is left to git. */
const PLAIN_BRANCH = /^refs\/heads\/(?!.*(?:\.\.|\/\.|\.lock(?:\/|$)|\/\/|@\{))[A-Za-z0-9][A-Za-z0-9._\/-]*(?<![./])$/;
const TEMP_PREFIX = 'openprogram-ref-';
const TEMP_FILE = /^openprogram-ref-(\d+)-[0-9a-f]{8}$/;
/** When this process started (ms): a file of its pid that is older is an earlier process's. */
const PROCESS_STARTED_AT = Date.now() - process.uptime() * 1000;

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The branch HEAD names, when it is a plain `refs/heads/…` one. */
function headBranch(gitDir: string): string | null {
  const match = /^ref: (\S+)\n?$/.exec(readOrNull(join(gitDir, 'HEAD')) ?? '');
  return match?.[1] && PLAIN_BRANCH.test(match[1]) ? match[1] : null;
}

/** The branch's value: its loose file, else its packed-refs line; undefined when neither can be read as a commit id. */
function branchValue(commonDir: string, ref: string): string | null | undefined {
  const loose = readOrNull(join(commonDir, ref));
  if (loose !== null) {
    const value = loose.trim();
    return SHA1.test(value) ? value : undefined;
  }
  const packed = readOrNull(join(commonDir, 'packed-refs')) ?? '';
  for (const line of packed.split('\n')) {
    if (line.endsWith(` ${ref}`)) {
      const value = line.slice(0, line.indexOf(' '));
      return SHA1.test(value) ? value : undefined;
    }
  }
  return null;
}

/** git's reflog line (refs/files-backend.c): the message on one line, whitespace collapsed. */
export function reflogLine(old: string, next: string, who: ReflogIdent, seconds: number, message: string): string {
  const oneLine = message.replace(/\s+/g, ' ').trim();
  return `${old} ${next} ${who.name} <${who.email}> ${Math.floor(seconds)} +0000\t${oneLine}\n`;
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Move HEAD's branch from `expected` (null: unborn) to `next`. 'unsupported': nothing was
 * touched, run git. ConflictError: the branch or HEAD moved, or the user's git holds a lock;
 * nothing was changed and no lock is left.
 */
export function updateHeadInProcess(dirs: GitDirs, next: string, expected: string | null, reflog: string, who: ReflogIdent, seconds: number): 'done' | 'unsupported' {
  if (!SHA1.test(next) || (expected !== null && !SHA1.test(expected))) return 'unsupported';
  if (existsSync(join(dirs.commonDir, 'reftable'))) return 'unsupported';
  const ref = headBranch(dirs.gitDir);
  if (!ref) return 'unsupported';
  const refPath = join(dirs.commonDir, ref);
  const logs = [join(dirs.commonDir, 'logs', ref), join(dirs.gitDir, 'logs', 'HEAD')];
  // Whether to start a reflog is git's decision (core.logAllRefUpdates); appending to one is not.
  if (!logs.every((log) => existsSync(log))) return 'unsupported';
  clearStaleRefLocks(dirs);
  const temp = join(dirs.gitDir, `${TEMP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  const fd = openSync(temp, 'wx', 0o644);
  try {
    writeSync(fd, `${next}\n`);
    fsyncSync(fd); // git fsyncs refs (core.fsync's default "committed")
  } finally {
    closeSync(fd);
  }
  const headLock = join(dirs.gitDir, 'HEAD.lock');
  const refLock = `${refPath}.lock`;
  const held: string[] = [];
  try {
    if (!tryLock(temp, headLock, held)) throw busy(headLock);
    // Under HEAD's lock: HEAD still names the same branch (a checkout takes this lock too).
    if (headBranch(dirs.gitDir) !== ref) throw moved('HEAD now names another branch');
    mkdirSync(dirname(refPath), { recursive: true });
    if (!tryLock(temp, refLock, held)) throw busy(refLock);
    const current = branchValue(dirs.commonDir, ref);
    if (current === undefined) return 'unsupported';
    if (current !== expected) throw moved(`${ref} is at ${current ?? 'nothing'}, expected ${expected ?? 'nothing'}`);
    const line = reflogLine(expected ?? ZERO, next, who, seconds, reflog);
    for (const log of logs) appendFileSync(log, line);
    renameSync(refLock, refPath);
    held.splice(held.indexOf(refLock), 1);
    return 'done';
  } finally {
    for (const lock of held) unlinkQuietly(lock);
    unlinkQuietly(temp);
  }
}

/** Take git's lock `lock` as a hard link to `temp`; false when somebody holds it. */
function tryLock(temp: string, lock: string, held: string[]): boolean {
  try {
    linkSync(temp, lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  held.push(lock);
  return true;
}

function busy(lock: string): ConflictError {
  return new ConflictError(`the project's HEAD could not be moved: ${lock} exists (git is busy there); nothing was changed`);
}

function moved(detail: string): ConflictError {
  return new ConflictError(`the project's HEAD moved while OpenProgram was updating it; nothing was changed (${detail})`);
}

function sameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a);
    const y = statSync(b);
    return x.ino === y.ino && x.dev === y.dev;
  } catch {
    return false;
  }
}

/**
 * The private files of a process killed mid-update, and the locks that are hard links to them
 * (HEAD's and its branch's, the only ones taken here); a lock the user's git holds is another
 * file and stays.
 */
export function clearStaleRefLocks(dirs: GitDirs): void {
  let names: string[];
  try {
    names = readdirSync(dirs.gitDir);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(TEMP_FILE.exec(name)?.[1] ?? NaN);
    if (!Number.isInteger(pid)) continue;
    const temp = join(dirs.gitDir, name);
    let mtime: number;
    try {
      mtime = statSync(temp).mtimeMs;
    } catch {
      continue;
    }
    const stale = pid === process.pid ? mtime < PROCESS_STARTED_AT : !processAlive(pid);
    if (!stale) continue;
    const ref = headBranch(dirs.gitDir);
    const locks = [join(dirs.gitDir, 'HEAD.lock'), ...(ref ? [join(dirs.commonDir, `${ref}.lock`)] : [])];
    for (const lock of locks) if (sameFile(temp, lock)) unlinkQuietly(lock);
    unlinkQuietly(temp);
  }
}
