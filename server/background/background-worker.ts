/**
 * The background thread (background-thread.ts starts it): plans the proxy's finished exchanges
 * and redacts large texts, so the request threads only forward bytes and write files. Lowers
 * its own priority first: on a busy machine forwarding goes before recording. The redaction
 * rules (secretlint's preset, seconds of CPU to load on a busy machine) load at the first
 * redaction, not with the thread: a proxy's first recordings do not wait for them.
 */
import { parentPort, threadId } from 'node:worker_threads';
import { planExchange } from '../../lib/proxy/plan';
import type { BackgroundJob } from './background-jobs';
import { BACKGROUND_NICE, lowerThreadPriority } from './worker-threads';

lowerThreadPriority(BACKGROUND_NICE);

let redaction: Promise<typeof import('./background-jobs')> | null = null;

async function run(job: BackgroundJob): Promise<unknown> {
  if (job.kind === 'plan') return planExchange(job.exchange);
  const { runJob } = await (redaction ??= import('./background-jobs'));
  return runJob(job);
}

// One job at a time, in arrival order: a plan waits behind a redaction still loading its rules.
let queue: Promise<unknown> = Promise.resolve();
parentPort!.on('message', ({ id, job }: { id: number; job: BackgroundJob }) => {
  queue = queue.then(() =>
    run(job).then(
      (result) => parentPort!.postMessage({ id, result, threadId }),
      (error: unknown) => parentPort!.postMessage({ id, error: (error as Error).message }),
    ),
  );
});
parentPort!.postMessage({ ready: true });
