/**
 * A render worker's entry (render-pool.ts starts it): lowers this thread's priority before
 * anything else, so loading Markdown, shiki and the grammars (seconds of CPU on a busy machine,
 * at every replacement of a stopped worker) yields to the request threads too, then loads the work.
 */
import { lowerThreadPriority } from '../background/worker-threads';
import { RENDER_NICE } from './render-protocol';

lowerThreadPriority(RENDER_NICE);

await import('./render-worker-loop');
