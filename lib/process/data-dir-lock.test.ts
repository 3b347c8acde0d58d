import { spawnSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, readLiveLock } from './data-dir-lock.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'em-lock-'));
  dirs.push(dir);
  return dir;
}

describe('data directory lock', () => {
  it('writes our pid (0600) and removes the lock on release', () => {
    const dir = dataDir();
    const release = acquireDataDirLock(dir, 'http://localhost:3000');
    const lock = join(dir, 'server.lock');
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, url: 'http://localhost:3000' });
    expect(statSync(lock).mode & 0o777).toBe(0o600);
    release();
    expect(existsSync(lock)).toBe(false);
  });

  it('refuses while another live process holds it, with a clear message', async () => {
    const dir = dataDir();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      writeFileSync(join(dir, 'server.lock'), JSON.stringify({ pid: other.pid, startedAt: 1, url: 'http://x:1' }));
      expect(() => acquireDataDirLock(dir, null)).toThrow(DataDirLockedError);
      expect(() => acquireDataDirLock(dir, null)).toThrow(/pid \d+, http:\/\/x:1\) is using the data directory/);
      expect(readLiveLock(dir)?.pid).toBe(other.pid);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('respects the lock of a live server run by Bun or Deno', async () => {
    const dir = dataDir();
    for (const runtime of ['bun', 'deno']) {
      // argv0 as the shell of `npm run start:bun` leaves it: /proc/<pid>/cmdline starts with it.
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { argv0: runtime });
      try {
        await new Promise((resolve) => other.once('spawn', resolve));
        writeFileSync(join(dir, 'server.lock'), JSON.stringify({ pid: other.pid, startedAt: 1, url: null }));
        expect(readLiveLock(dir)?.pid, runtime).toBe(other.pid);
        expect(() => acquireDataDirLock(dir, null), runtime).toThrow(DataDirLockedError);
      } finally {
        other.kill('SIGKILL');
      }
    }
  });

  it('takes over a lock whose process is dead', () => {
    const dir = dataDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    writeFileSync(join(dir, 'server.lock'), JSON.stringify({ pid: dead, startedAt: 1, url: null }));
    expect(readLiveLock(dir)).toBeNull();
    const release = acquireDataDirLock(dir, null);
    expect(readLiveLock(dir)?.pid).toBe(process.pid);
    release();
  });

  it('takes over an unreadable lock file', () => {
    const dir = dataDir();
    writeFileSync(join(dir, 'server.lock'), 'garbage');
    acquireDataDirLock(dir, null)();
  });
});
