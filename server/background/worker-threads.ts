import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * The server's worker threads (the render pool, the proxy's planning thread) start here, and
 * lower their priority here: on a busy machine the request threads go first.
 */
const versions = process.versions as Record<string, string | undefined>;

/** The background thread's nice value: on a busy machine forwarding goes before recording. */
export const BACKGROUND_NICE = 10;

/** Lowers this thread's priority: Linux sets a nice value per thread (threads started from it inherit it); /proc/thread-self names this one. */
export function lowerThreadPriority(nice: number): void {
  try {
    setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), nice);
  } catch {
    // not Linux, or not allowed: the process's priority
  }
}

export interface StartWorkerOptions {
  /** the thread's nice value, set before its code loads (on Node: before tsx and esbuild start, so they inherit it) */
  nice?: number;
  resourceLimits?: ResourceLimits;
}

/**
 * A worker thread running the TypeScript module `entry`. Node loads it through tsx, registered
 * inside the new thread (a `--import tsx` in execArgv is not applied to a worker's entry on
 * Node 20); Bun and Deno run TypeScript as is (the entry lowers its own priority there).
 */
export function startWorker(entry: string, options: StartWorkerOptions = {}): Worker {
  if (versions['bun'] || versions['deno']) return new Worker(entry);
  const url = JSON.stringify(pathToFileURL(entry).href);
  const lowerPriority =
    options.nice === undefined ? '' : `try { require('node:os').setPriority(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()), ${options.nice}); } catch {}`;
  return new Worker(`${lowerPriority} import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${url}); })`, {
    eval: true,
    execArgv: [],
    ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
  });
}
