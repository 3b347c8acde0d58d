import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync, mkdirSync } from 'node:fs';
import { open, mkdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

// Unique per process and call; the random part guards against a reused pid after a crash.
const TEMP_PREFIX = `${process.pid}.${randomBytes(3).toString('hex')}`;
let tempCounter = 0;

/**
 * Beside the file, unless `tempDir` names another directory on the same filesystem: a git ref
 * must not get its temp file under refs/, where a crash would leave a file git reads as a broken
 * ref (`git fsck`: invalid sha1 pointer). A hidden name at the top of the gitdir is ignored by git.
 */
function tempPathFor(path: string, tempDir?: string): string {
  const name = `${basename(path)}.${TEMP_PREFIX}.${++tempCounter}.tmp`;
  return tempDir === undefined ? join(dirname(path), name) : join(tempDir, `.${name}`);
}

function openForWrite(path: string): number {
  try {
    return openSync(path, 'w', FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
    return openSync(path, 'w', FILE_MODE);
  }
}

function fsyncDirSync(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Write a file so that a reader sees either the old or the new content, never a torn one:
 * temp file, optional fsync, rename, directory fsync.
 */
export function atomicWriteFileSync(path: string, data: string | Uint8Array, options: { durable?: boolean; tempDir?: string } = {}): void {
  const durable = options.durable ?? true;
  const tmp = tempPathFor(path, options.tempDir);
  const fd = openForWrite(tmp);
  try {
    try {
      const buffer = typeof data === 'string' ? Buffer.from(data) : data;
      let offset = 0;
      while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    // A full disk fails the write half-way: the torn temp file would keep the space taken for good.
    rmSync(tmp, { force: true });
    throw error;
  }
  if (durable) fsyncDirSync(dirname(path));
}

async function fsyncDir(dir: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    await handle?.close();
  }
}

/**
 * Async twin of atomicWriteFileSync, always durable, every sync in the thread pool: for large
 * files (the registry) and for writes on a request's path (a turn's ref) that must not block the loop.
 */
export async function atomicWriteFile(path: string, data: string | Uint8Array, options: { stillWanted?: () => boolean; tempDir?: string } = {}): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
  const tmp = tempPathFor(path, options.tempDir);
  const handle = await open(tmp, 'w', FILE_MODE);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // Checked and renamed in one tick: a synchronous write of newer content cannot come between.
    if (options.stillWanted && !options.stillWanted()) {
      await rm(tmp, { force: true });
      return false;
    }
    renameSync(tmp, path);
  } catch (error) {
    // A full disk fails the write half-way: the torn temp file would keep the space taken for good.
    await rm(tmp, { force: true });
    throw error;
  }
  await fsyncDir(dirname(path));
  return true;
}

/**
 * A new file (never an existing one), written and fsynced in the thread pool: for files in a
 * staging directory that is renamed into place afterwards, so no reader sees them half written.
 */
export async function writeNewFileDurably(path: string, chunks: readonly Uint8Array[], mode = FILE_MODE): Promise<void> {
  const handle = await open(path, 'wx', mode);
  try {
    await handle.writev(chunks as Uint8Array[]);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
