import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';

/**
 * What a cache keyed by a file compares to know the file is unchanged: inode, size and both
 * times (a rewrite in place keeps the inode; a rename over it does not). null: no such file.
 */
export async function fileSignature(path: string): Promise<string | null> {
  try {
    const s = await stat(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return null;
  }
}

/** fileSignature without yielding: for a check that must happen in the same tick as what it guards. */
export function fileSignatureSync(path: string): string | null {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}` : null;
}
