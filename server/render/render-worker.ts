/**
 * A render worker's entry (render-pool.ts starts it): lowers this thread's priority before
 * anything else, so loading Markdown, shiki and the grammars (seconds of CPU on a busy machine,
 * at every replacement of a stopped worker) yields to the request threads too, then loads the work.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { RENDER_NICE } from './render-protocol';

// Linux sets a nice value per thread (threads started from here inherit it); /proc/thread-self names this one.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), RENDER_NICE);
} catch {
  // not Linux, or not allowed: the process's priority
}

await import('./render-worker-loop');
