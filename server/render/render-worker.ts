/**
 * One render worker (render-pool.ts starts it): renders one message at a time to HTML and posts
 * the answer. It says it is ready only once Markdown and the highlighter are loaded, so the
 * pool's deadline times rendering, never start-up.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { markdownToHtml, NestingTooDeepError } from './markdown-html';
import { RENDER_NICE, type WorkerAnswer, type WorkerJob } from './render-protocol';

const port = parentPort;
if (!port) throw new Error('render-worker.ts runs as a worker thread');

function answer(message: WorkerAnswer): void {
  port!.postMessage(message);
}

port.on('message', (job: WorkerJob) => {
  markdownToHtml(job.text).then(
    (html) => answer({ id: job.id, html }),
    (error: unknown) => {
      // A stack overflow deeper in the pipeline lands here too, as a RangeError: the pool shows the text.
      answer({ id: job.id, failure: error instanceof NestingTooDeepError ? 'too-deep' : 'failed', detail: String(error).slice(0, 200) });
    },
  );
});

// Linux sets a nice value per thread, and /proc/thread-self names this one.
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), RENDER_NICE);
} catch {
  // not Linux, or not allowed: the process's priority
}

await markdownToHtml('```ts\nconst warm = 1;\n```');
answer({ ready: true });
