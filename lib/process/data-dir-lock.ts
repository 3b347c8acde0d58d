import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './process-alive.js';

export interface LockInfo {
  pid: number;
  startedAt: number;
  /** where the server that holds the lock answers, for the CLI */
  url: string | null;
}

export class DataDirLockedError extends Error {
  constructor(readonly dataDir: string, readonly holder: LockInfo) {
    super(
      `Another Entity Memory server (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''}) is using the data directory ${dataDir}. ` +
        'Stop it first, or start this one with a different OPENPROGRAM_DATA_DIR.',
    );
    this.name = 'DataDirLockedError';
  }
}

function lockPath(dataDir: string): string {
  return join(dataDir, 'server.lock');
}

/** The lock's holder while that process is alive; null when nobody (alive) holds it. */
export function readLiveLock(dataDir: string): LockInfo | null {
  const info = readLock(lockPath(dataDir));
  return info && processAlive(info.pid) ? info : null;
}

/**
 * Take `<dataDir>/server.lock` (O_EXCL, so two starting servers cannot both win). A lock whose
 * process is gone (a killed server) is taken over. Returns a release function.
 */
export function acquireDataDirLock(dataDir: string, url: string | null): () => void {
  const path = lockPath(dataDir);
  const info: LockInfo = { pid: process.pid, startedAt: Date.now(), url };
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readLock(path);
      if (holder && holder.pid !== process.pid && processAlive(holder.pid)) throw new DataDirLockedError(dataDir, holder);
      // Stale (dead pid, our own pid from an earlier life, or unreadable): remove and retry.
      try {
        unlinkSync(path);
      } catch (unlinkError) {
        if ((unlinkError as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkError;
      }
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(info)}\n`);
    } finally {
      closeSync(fd);
    }
    return () => {
      // Only remove the lock if it is still ours.
      if (readLock(path)?.pid === process.pid) {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }
    };
  }
  throw new Error(`could not take the lock ${path}`);
}

function readLock(path: string): LockInfo | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockInfo>;
    if (typeof parsed.pid !== 'number' || !Number.isSafeInteger(parsed.pid) || parsed.pid <= 0) return null;
    return { pid: parsed.pid, startedAt: Number(parsed.startedAt) || 0, url: typeof parsed.url === 'string' ? parsed.url : null };
  } catch {
    return null;
  }
}
