import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { planExchange, type ExchangeBytes, type PlannedExchange } from '@/lib/proxy/plan';
import { redactMessage, redactMessages, type RedactableMessage } from '@/lib/redact/index';
import type { Redactor } from '@/lib/store/index';
import { BACKGROUND_NICE, startWorker } from './worker-threads';

/**
 * One thread beside the request threads for the CPU-heavy work of whole texts: reading the
 * proxy's finished exchanges (request JSON, fingerprints, the reply put back together) and
 * redacting large texts before the store writes them (a 32 MiB request, a large import). Jobs
 * are answered in arrival order. While the thread loads, a small exchange is planned here (never
 * held for it); a large one and a redaction wait for it, since here they would hold every user.
 */
export type BackgroundJob = { kind: 'plan'; exchange: ExchangeBytes } | { kind: 'redact'; messages: RedactableMessage[] };
type Redacted = { message: RedactableMessage; count: number }[];
type ResultOf<J extends BackgroundJob> = J extends { kind: 'plan' } ? PlannedExchange : Redacted;

interface Job {
  request: BackgroundJob;
  resolve: (result: unknown) => void;
  reject: (error: unknown) => void;
}

/** The job done here instead (the thread failed on it or is gone); an error reaches the caller. */
function runHere(job: Job): void {
  try {
    const { request } = job;
    job.resolve(request.kind === 'plan' ? planExchange(request.exchange) : redactMessages(request.messages));
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
}

const KEY = Symbol.for('entity-memory.background-thread');
const holder = globalThis as typeof globalThis & { [KEY]?: BackgroundThread };

function send(state: BackgroundThread, job: Job): void {
  const id = state.nextId++;
  state.jobs.set(id, job);
  // While a job is pending the thread keeps the process up, so the recording or import finishes.
  state.worker!.ref();
  state.worker!.postMessage({ id, job: job.request });
}

function thread(): BackgroundThread {
  const state = (holder[KEY] ??= { worker: null, ready: false, jobs: new Map(), waiting: [], nextId: 1, broken: process.env['OPENPROGRAM_BACKGROUND_THREAD'] === '0' });
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
  worker.on('message', (message: { id?: number; ready?: boolean; result?: unknown; error?: string }) => {
    if (message.ready) {
      state.ready = true;
      for (const job of state.waiting.splice(0)) send(state, job);
    }
    if (message.id === undefined) return;
    const job = state.jobs.get(message.id);
    if (!job) return;
    state.jobs.delete(message.id);
    if (state.jobs.size === 0) worker.unref();
    if (message.error === undefined) job.resolve(message.result);
    else runHere(job);
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

/** Runs one job in the background thread, or here when that thread is not available. The job's data is copied, not moved. */
export function runInBackground<J extends BackgroundJob>(request: J): Promise<ResultOf<J>> {
  const state = thread();
  return new Promise<unknown>((resolve, reject) => {
    const job: Job = { request, resolve, reject };
    if (state.worker && state.ready) send(state, job);
    else if (state.worker && (request.kind === 'redact' || isLarge(request.exchange))) state.waiting.push(job);
    else setImmediate(() => runHere(job));
  }) as Promise<ResultOf<J>>;
}

/** Plan one exchange in the background thread (see lib/proxy/plan.ts). */
export function planOffThread(exchange: ExchangeBytes): Promise<PlannedExchange> {
  return runInBackground({ kind: 'plan', exchange });
}

/**
 * The store's redactor (lib/redact's rules) whose large batches are redacted in the background
 * thread (lib/store's redact-parts.ts decides which). One object for the process: the store
 * remembers clean fields per redactor.
 */
export const backgroundRedactor: Redactor = Object.assign(<M extends RedactableMessage>(message: M) => redactMessage(message), {
  mayHoldSecret: redactMessage.mayHoldSecret,
  inBackground: <M extends RedactableMessage>(messages: M[]) => runInBackground({ kind: 'redact', messages }) as Promise<{ message: M; count: number }[]>,
});
