import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DIR_MODE, atomicWriteFileSync } from '../../../fs/atomic-write.js';
import type { GitBlameCommit } from './git-blame.js';

/**
 * The blame of (project, path, commit), kept so the next call after a new turn costs the diff
 * of that turn, not a `git blame` of the whole history (blame-diff.ts, incremental-blame.ts).
 * In memory: an LRU bounded by bytes, shared by every store of the process (a commit id names
 * its whole history, so an entry is right for any folder that has the commit). On disk: one
 * file per (project, path) under `<stateDir>/projects/<projectId>/blame/`, the last blame
 * computed, so a restarted server or the next CLI run starts from it. A missing, corrupt or
 * older-format file is just a miss.
 */

export interface CachedBlame {
  /** the commit blamed at */
  rev: string;
  /** per line, first line first, the commit that last changed it */
  lines: readonly string[];
  /** who made each commit of `lines` */
  commits: ReadonlyMap<string, GitBlameCommit>;
}

/** Where a blame is kept: the repository, and (for the disk copy) the store's state and the project. */
export interface BlameCacheScope {
  repo: string;
  disk?: { stateDir: string; projectId: string };
}

const FORMAT_VERSION = 1;
/** Room for about 150 blames of a 2,000-line file; a server keeps one process for every user. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

interface Slot {
  blame: CachedBlame;
  bytes: number;
}

export class BlameCache {
  private readonly slots = new Map<string, Slot>();
  /** (repo, path) → the rev last blamed at the tip (no rev asked): where the next turn's blame starts. */
  private readonly latest = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  get size(): number {
    return this.slots.size;
  }

  /** The blame at exactly `rev`, from memory or disk; `atTip` as for store. */
  async exact(scope: BlameCacheScope, path: string, rev: string, atTip: boolean): Promise<CachedBlame | null> {
    const slot = this.touch(slotKey(scope.repo, path, rev));
    if (slot) {
      if (atTip) this.latest.set(pathKey(scope.repo, path), rev);
      return slot.blame;
    }
    // The disk holds the blame last computed at the tip: the one in memory, when there is one.
    if (this.latest.has(pathKey(scope.repo, path))) return null;
    const stored = await readStored(scope, path);
    if (stored?.rev !== rev) return null;
    this.remember(scope.repo, path, stored, atTip);
    return stored;
  }

  /** The blame to start from for `path` at a later commit: the one last computed at the tip, else the one on disk. */
  async base(scope: BlameCacheScope, path: string): Promise<CachedBlame | null> {
    const rev = this.latest.get(pathKey(scope.repo, path));
    const slot = rev ? this.touch(slotKey(scope.repo, path, rev)) : undefined;
    return slot?.blame ?? (await readStored(scope, path));
  }

  /** Keep a blame just computed; `atTip`: asked without a rev, so the next turn's blame starts here (and the disk copy is it). */
  store(scope: BlameCacheScope, path: string, blame: CachedBlame, atTip: boolean): void {
    this.remember(scope.repo, path, blame, atTip);
    if (atTip && scope.disk) writeStored(scope.disk, path, blame);
  }

  /** The sessions the blame kept at the tip names (memory only): most likely the ones the next blame of the path names. */
  sessionsAtTip(repo: string, path: string): string[] {
    const rev = this.latest.get(pathKey(repo, path));
    const slot = rev ? this.slots.get(slotKey(repo, path, rev)) : undefined;
    return [...new Set([...(slot?.blame.commits.values() ?? [])].flatMap((commit) => (commit.sessionId ? [commit.sessionId] : [])))];
  }

  private remember(repo: string, path: string, blame: CachedBlame, atTip: boolean): void {
    const key = slotKey(repo, path, blame.rev);
    const old = this.slots.get(key);
    if (old) this.drop(key, old);
    const bytes = sizeOf(key, blame);
    if (bytes > this.maxBytes) return;
    this.slots.set(key, { blame, bytes });
    this.bytes += bytes;
    if (atTip || !this.latest.has(pathKey(repo, path))) this.latest.set(pathKey(repo, path), blame.rev);
    for (const [oldest, slot] of this.slots) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest, slot);
    }
  }

  private touch(key: string): Slot | undefined {
    const slot = this.slots.get(key);
    if (slot) {
      // Map order is the LRU order: the most recently used last.
      this.slots.delete(key);
      this.slots.set(key, slot);
    }
    return slot;
  }

  private drop(key: string, slot: Slot): void {
    this.slots.delete(key);
    this.bytes -= slot.bytes;
    const [repo = '', path = '', rev = ''] = key.split('\0');
    if (this.latest.get(pathKey(repo, path)) === rev) this.latest.delete(pathKey(repo, path));
  }
}

/** The process's cache: project.blame from the server and the CLI's local backend. */
export const blameCache = new BlameCache();

function slotKey(repo: string, path: string, rev: string): string {
  return `${repo}\0${path}\0${rev}`;
}

function pathKey(repo: string, path: string): string {
  return `${repo}\0${path}`;
}

/** An estimate that grows as the heap does: a pointer per line, the commit entries, the key. */
function sizeOf(key: string, blame: CachedBlame): number {
  return 64 + key.length * 2 + blame.lines.length * 8 + blame.commits.size * 256;
}

interface StoredBlame {
  version: number;
  path: string;
  rev: string;
  commits: GitBlameCommit[];
  /** per line, the index of its commit in `commits` */
  lines: number[];
}

function storedPath(disk: NonNullable<BlameCacheScope['disk']>, path: string): string {
  // Paths may be long or hold any character: the file is named by a hash, the path kept inside.
  return join(disk.stateDir, 'projects', disk.projectId, 'blame', `${createHash('sha256').update(path).digest('hex').slice(0, 32)}.json`);
}

function writeStored(disk: NonNullable<BlameCacheScope['disk']>, path: string, blame: CachedBlame): void {
  const index = new Map([...blame.commits.keys()].map((sha, i) => [sha, i]));
  const stored: StoredBlame = { version: FORMAT_VERSION, path, rev: blame.rev, commits: [...blame.commits.values()], lines: blame.lines.map((sha) => index.get(sha)!) };
  const file = storedPath(disk, path);
  try {
    mkdirSync(join(file, '..'), { recursive: true, mode: DIR_MODE });
    // A cache: no fsync, a lost or torn-away file is a miss.
    atomicWriteFileSync(file, JSON.stringify(stored), { durable: false });
  } catch {
    // A full or read-only disk costs the next call a full blame, nothing more.
  }
}

async function readStored(scope: BlameCacheScope, path: string): Promise<CachedBlame | null> {
  if (!scope.disk) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(storedPath(scope.disk, path), 'utf8'));
  } catch {
    return null;
  }
  return validStored(parsed, path);
}

const SHA = /^[0-9a-f]{40,64}$/;

function validStored(value: unknown, path: string): CachedBlame | null {
  if (typeof value !== 'object' || value === null) return null;
  const stored = value as Partial<StoredBlame>;
  if (stored.version !== FORMAT_VERSION || stored.path !== path || typeof stored.rev !== 'string' || !SHA.test(stored.rev)) return null;
  if (!Array.isArray(stored.commits) || !Array.isArray(stored.lines) || !stored.commits.every(validCommit)) return null;
  const shas = stored.commits.map((commit) => commit.sha);
  const lines: string[] = [];
  for (const index of stored.lines) {
    const sha = typeof index === 'number' ? shas[index] : undefined;
    if (sha === undefined) return null;
    lines.push(sha);
  }
  return { rev: stored.rev, lines, commits: new Map(stored.commits.map((commit) => [commit.sha, commit])) };
}

function validCommit(value: unknown): value is GitBlameCommit {
  if (typeof value !== 'object' || value === null) return false;
  const commit = value as Record<string, unknown>;
  return (
    typeof commit.sha === 'string' &&
    SHA.test(commit.sha) &&
    (commit.by === 'agent' || commit.by === 'person') &&
    (commit.agent === null || typeof commit.agent === 'string') &&
    (commit.sessionId === null || typeof commit.sessionId === 'string') &&
    (commit.turn === null || Number.isSafeInteger(commit.turn))
  );
}
