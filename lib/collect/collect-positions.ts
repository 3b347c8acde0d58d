import { readFile } from 'node:fs/promises';
import { atomicWriteFile } from '../fs/atomic-write.js';

/**
 * Where the collector stands in each file (`~/.entity-memory/collect.json`, DESIGN §17): the
 * bytes of the file the server has acknowledged, and which file that was (its inode), so a file
 * replaced under the same name is read again from its start.
 */
export interface FilePosition {
  ino: number;
  offset: number;
}

export interface CollectPositions {
  version: 1;
  /** by absolute path */
  files: Record<string, FilePosition>;
}

export function emptyPositions(): CollectPositions {
  return { version: 1, files: {} };
}

function isPosition(value: unknown): value is FilePosition {
  if (value === null || typeof value !== 'object') return false;
  const { ino, offset } = value as Record<string, unknown>;
  return typeof ino === 'number' && Number.isSafeInteger(offset) && (offset as number) >= 0;
}

/**
 * The saved positions; a missing file is a first run. A damaged one starts every file from 0
 * again: the import drops what the server already has, so nothing is duplicated, only resent.
 */
export async function loadPositions(path: string, warn: (line: string) => void = () => {}): Promise<CollectPositions> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyPositions();
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as { version?: unknown; files?: unknown };
    const positions = emptyPositions();
    if (parsed.version !== 1 || parsed.files === null || typeof parsed.files !== 'object') throw new Error('not a collect.json of version 1');
    for (const [file, position] of Object.entries(parsed.files as Record<string, unknown>)) {
      if (isPosition(position)) positions.files[file] = { ino: position.ino, offset: position.offset };
    }
    return positions;
  } catch (error) {
    warn(`collect: ${path} is damaged (${(error as Error).message}): every file is sent again from its start; the server drops what it has`);
    return emptyPositions();
  }
}

/** Written whole or not at all (temp file, fsync, rename), only after the server acknowledged. */
export async function savePositions(path: string, positions: CollectPositions): Promise<void> {
  await atomicWriteFile(path, `${JSON.stringify(positions)}\n`);
}

/** What the collector does with a file as it is now: nothing new, or send it up to its end from a start. */
export type ReadPlan = { kind: 'unchanged' } | { kind: 'read'; from: number; restarted: boolean };

/**
 * A file that shrank or is another file under the same name (a new inode) is read again from 0;
 * a grown one from the saved offset; one the collector never saw from 0.
 */
export function planRead(saved: FilePosition | undefined, now: { ino: number; size: number }): ReadPlan {
  if (!saved) return now.size > 0 ? { kind: 'read', from: 0, restarted: false } : { kind: 'unchanged' };
  if (saved.ino !== now.ino || now.size < saved.offset) return { kind: 'read', from: 0, restarted: true };
  if (now.size === saved.offset) return { kind: 'unchanged' };
  return { kind: 'read', from: saved.offset, restarted: false };
}
