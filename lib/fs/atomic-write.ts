import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync, mkdirSync } from 'node:fs';
import { open, rename, mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

// Unique per process and call; the random part guards against a reused pid after a crash.
const TEMP_PREFIX = `${process.pid}.${randomBytes(3).toString('hex')}`;
let tempCounter = 0;

function tempPathFor(path: string): string {
  return `${path}.${TEMP_PREFIX}.${++tempCounter}.tmp`;
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
export function atomicWriteFileSync(path: string, data: string | Uint8Array, options: { durable?: boolean } = {}): void {
  const durable = options.durable ?? true;
  const tmp = tempPathFor(path);
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

/** Async twin of atomicWriteFileSync, for large files (the registry) that must not block the loop. */
export async function atomicWriteFile(path: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
  const tmp = tempPathFor(path);
  const handle = await open(tmp, 'w', FILE_MODE);
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
  fsyncDirSync(dirname(path));
}
