import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { ExchangeBytes, PlannedExchange } from '@/lib/proxy/plan';
import { redactMessage, type RedactableMessage } from '@/lib/redact/index';
import type { Redactor } from '@/lib/store/index';
import { runJob, type BackgroundJob, type ResultOf } from './background-jobs';
import { movableBuffers } from './moved-buffers';
import { BACKGROUND_NICE, startWorker } from './worker-threads';

/**
 * One thread beside the request threads for the CPU-heavy work of whole texts: reading the
 * proxy's finished exchanges (request JSON, fingerprints, the reply put back together) and
 * redacting large texts before the store writes them (a 32 MiB request, a large import, a large
 * uploaded file). Jobs
 * are answered in arrival order. While the thread loads, a small exchange is planned here (never
 * held for it); a large one and a redaction wait for it, since here they would hold every user.
 */
export type { BackgroundJob } from './background-jobs';

interface Job {
  request: BackgroundJob;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
  /** memory the caller gave up, moved to the thread with the job (not copied) */
  move: ArrayBuffer[];
  /** the job's memory went to the thread: it cannot be done here again */
  moved?: boolean;
}

/** The job done here instead (the thread failed on it or is gone); an error reaches the caller. */
function runHere(job: Job): void {
  try {
    if (job.moved) throw new Error(`the background thread failed on a ${job.request.kind} job whose data it held`);
    thread().counts.here[job.request.kind]++;
    job.resolve(runJob(job.request));
  } catch (error) {
    job.reject(error);
  }
}

interface BackgroundThread {
  worker: Worker | null;
  /** the thread has loaded its code */
  ready: boolean;
  jobs: Map<number, Job>;
  /** redactions waiting for the thread to load */
  waiting: Job[];
  nextId: number;
  /** the thread could not start or died: work on this thread from now on */
  broken: boolean;
  /** jobs answered by the thread (and the threads that answered), and done here instead: for tests and the bench */
  counts: { thread: JobCounts; threadIds: Set<number>; here: JobCounts };
}

type JobCounts = Record<BackgroundJob['kind'], number>;
const noJobs = (): JobCounts => ({ plan: 0, redact: 0, 'redact-bytes': 0 });

const KEY = Symbol.for('entity-memory.background-thread');
const holder = globalThis as typeof globalThis & { [KEY]?: BackgroundThread };

function send(state: BackgroundThread, job: Job): void {
  const id = state.nextId++;
  state.jobs.set(id, job);
  // While a job is pending the thread keeps the process up, so the recording or import finishes.
  state.worker!.ref();
  const transfer = job.move.filter((buffer) => buffer.byteLength > 0);
  job.moved = transfer.length > 0;
  state.worker!.postMessage({ id, job: job.request }, transfer);
}

function thread(): BackgroundThread {
  const state: BackgroundThread = (holder[KEY] ??= {
    worker: null,
    ready: false,
    jobs: new Map(),
    waiting: [],
    nextId: 1,
    broken: process.env['OPENPROGRAM_BACKGROUND_THREAD'] === '0',
    counts: { thread: noJobs(), threadIds: new Set(), here: noJobs() },
  });
  if (state.worker || state.broken) return state;
  let worker: Worker;
  try {
    worker = startWorker(join(process.cwd(), 'server', 'background', 'background-worker.ts'), { nice: BACKGROUND_NICE });
  } catch (error) {
    console.error(`[background] the background thread could not start (${(error as Error).message}); working on the request thread`);
    state.broken = true;
    return state;
  }
  // An idle thread must not keep a test or a CLI process alive.
  worker.unref();
  worker.on('message', (message: { id?: number; ready?: boolean; result?: unknown; error?: string; threadId?: number }) => {
    if (message.ready) {
      state.ready = true;
      for (const job of state.waiting.splice(0)) send(state, job);
    }
    if (message.id === undefined) return;
    const job = state.jobs.get(message.id);
    if (!job) return;
    state.jobs.delete(message.id);
    if (state.jobs.size === 0) worker.unref();
    if (message.error !== undefined) return runHere(job);
    state.counts.thread[job.request.kind]++;
    state.counts.threadIds.add(message.threadId ?? -1);
    job.resolve(message.result);
  });
  const lost = (error?: unknown) => {
    if (state.worker !== worker) return;
    console.error('[background] the background thread stopped; working on the request thread:', (error as Error | undefined)?.message ?? 'exited');
    state.worker = null;
    state.ready = false;
    state.broken = true;
    // Nothing in flight is lost: what the thread held or waited for is done here.
    const held = [...state.jobs.values(), ...state.waiting.splice(0)];
    state.jobs.clear();
    for (const job of held) runHere(job);
  };
  worker.on('error', lost);
  worker.on('exit', () => lost());
  state.worker = worker;
  return state;
}

/** Starts the thread (at the first proxied request, while it is forwarded), so the first recording does not wait for it. */
export function warmBackgroundThread(): void {
  thread();
}

/** An exchange this large is planned in the thread even if it must wait for it to load: here its JSON and hashes would hold every user. */
const LARGE_EXCHANGE_BYTES = 512 * 1024;
const isLarge = (exchange: ExchangeBytes): boolean => (exchange.body?.byteLength ?? 0) + exchange.bytes.byteLength >= LARGE_EXCHANGE_BYTES;

/**
 * Runs one job in the background thread, or here when that thread is not available. The job's
 * data is copied, except the views in `move` (movableBuffers): the caller gives those up (they
 * read as empty once sent).
 */
export function runInBackground<J extends BackgroundJob>(request: J, move: readonly (Uint8Array | null)[] = []): Promise<ResultOf<J>> {
  const state = thread();
  return new Promise<unknown>((resolve, reject) => {
    const job: Job = { request, resolve, reject, move: movableBuffers(move) };
    if (state.worker && state.ready) send(state, job);
    else if (state.worker && (request.kind !== 'plan' || isLarge(request.exchange))) state.waiting.push(job);
    else setImmediate(() => runHere(job));
  }) as Promise<ResultOf<J>>;
}

/** Plan one exchange in the background thread (see lib/proxy/plan.ts); `move`: its views the caller gives up (runInBackground). */
export function planOffThread(exchange: ExchangeBytes, move: readonly (Uint8Array | null)[] = []): Promise<PlannedExchange> {
  return runInBackground({ kind: 'plan', exchange }, move);
}

/**
 * The store's redactor (lib/redact's rules) whose large batches are redacted in the background
 * thread (lib/store's redact-parts.ts decides which). One object for the process: the store
 * remembers clean fields per redactor.
 */
export const backgroundRedactor: Redactor = Object.assign(<M extends RedactableMessage>(message: M) => redactMessage(message), {
  mayHoldSecret: redactMessage.mayHoldSecret,
  inBackground: <M extends RedactableMessage>(messages: M[]) => runInBackground({ kind: 'redact', messages }) as Promise<{ message: M; count: number }[]>,
  // A view of a larger buffer (an object of `git cat-file --batch`) would be copied whole to the thread: its own bytes only.
  bytesInBackground: (bytes: Uint8Array) => runInBackground({ kind: 'redact-bytes', bytes: bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice() }),
});

/** What the thread has done so far, and what was done here instead (tests, the bench). */
export function backgroundCounts(): BackgroundThread['counts'] {
  return thread().counts;
}
