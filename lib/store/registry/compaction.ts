import { randomBytes } from 'node:crypto';
import { renameSync } from 'node:fs';
import { link, open, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FILE_MODE } from '../../fs/atomic-write.js';
import type { RegistryEntry } from '../types.js';

/** A slice of a compaction holds the main thread at most this long before it awaits a write. */
const SLICE_MS = 2;
const SLICE_CHARS = 1 << 18;
/**
 * Written data is flushed every this many bytes: one fsync of 50 MB at the end would make every
 * log record's fdatasync meanwhile wait for all of it (ext4 commits in order).
 */
const SYNC_EVERY_BYTES = 4 << 20;

export function snapshotTmpPath(path: string): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.compact.tmp`;
}

async function fsyncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  }
}

/**
 * index.json from a snapshot, in time slices: each slice turns entries into text for at most
 * SLICE_MS, then awaits an asynchronous write, so a 100,000-entry (~50 MB)
 * snapshot never blocks the event loop for more than a few milliseconds. The text is exactly
 * Registry.serialize()'s. `stillWanted` is asked right before the rename (synchronous, so
 * nothing can run between the check and the rename): a newer full write wins. The old
 * index.json is first linked to `previousPath`, so the rename does not free its ~50 MB on the
 * main thread; the unlink that does runs in the thread pool.
 */
export async function writeSnapshot(
  path: string,
  previousPath: string,
  entries: readonly RegistryEntry[],
  chunkOf: (entry: RegistryEntry) => string,
  stillWanted: () => boolean,
): Promise<boolean> {
  const tmp = snapshotTmpPath(path);
  const handle = await open(tmp, 'w', FILE_MODE);
  let complete = false;
  try {
    if (entries.length === 0) await handle.write('{}');
    let index = 0;
    let first = true;
    let unsynced = 0;
    while (index < entries.length) {
      const started = performance.now();
      const parts: string[] = [];
      let chars = 0;
      while (index < entries.length && (parts.length === 0 || (chars < SLICE_CHARS && performance.now() - started < SLICE_MS))) {
        const chunk = chunkOf(entries[index]!);
        parts.push(chunk);
        chars += chunk.length;
        index++;
      }
      const head = first ? '{\n' : ',\n';
      first = false;
      const tail = index === entries.length ? '\n}' : '';
      await handle.write(`${head}${parts.join(',\n')}${tail}`);
      unsynced += chars;
      if (unsynced > SYNC_EVERY_BYTES) {
        await handle.datasync();
        unsynced = 0;
      }
    }
    await handle.sync();
    complete = true;
  } finally {
    await handle.close();
    if (!complete) await unlink(tmp).catch(() => undefined);
  }
  return installSnapshot(tmp, path, previousPath, stillWanted);
}

/** A temporary file of the whole snapshot, fsynced, becomes index.json (unless a newer full write won). */
export async function installSnapshot(tmp: string, path: string, previousPath: string, stillWanted: () => boolean): Promise<boolean> {
  await unlink(previousPath).catch(() => undefined);
  await link(path, previousPath).catch(() => undefined);
  if (!stillWanted()) {
    await unlink(tmp).catch(() => undefined);
    return false;
  }
  renameSync(tmp, path);
  await fsyncDir(dirname(path));
  await unlink(previousPath).catch(() => undefined);
  return true;
}
