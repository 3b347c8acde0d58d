import { readFileSync } from 'node:fs';

/**
 * Whether `pid` is a live process of ours: it exists (EPERM: someone else's, but alive) and, on
 * Linux, runs one of the runtimes the server and the CLI run on (npm start, start:bun,
 * start:deno, the CLI's node). A dead process's pid may have been reused by an unrelated
 * program, which must not keep its lock or its files. The data-directory lock and the store's
 * temporary git index files both ask here.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /node|next|bun|deno/.test(cmdline);
  } catch {
    return true;
  }
}
