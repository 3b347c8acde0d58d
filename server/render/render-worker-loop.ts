/**
 * A render worker's work (render-worker.ts loads it): renders one message at a time to HTML and
 * posts the answer. It says it is ready only once Markdown and the highlighter are loaded, so the
 * pool's deadline times rendering, never start-up.
 */
import { parentPort } from 'node:worker_threads';
import { markdownToHtml, NestingTooDeepError } from './markdown-html';
import type { WorkerAnswer, WorkerJob } from './render-protocol';

const port = parentPort;
if (!port) throw new Error('render-worker-loop.ts runs in a worker thread');

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

await markdownToHtml('```ts\nconst warm = 1;\n```');
answer({ ready: true });
