import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Scratch directories of a benchmark; bench/run.ts removes them after the last figure. */
const dirs: string[] = [];

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export function scratchDirs(): string[] {
  return [...dirs];
}
