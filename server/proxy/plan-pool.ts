import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { planExchange, type ExchangeBytes, type PlannedExchange } from '@/lib/proxy/plan';

interface Job {
  exchange: ExchangeBytes;
  resolve: (plan: PlannedExchange) => void;
  reject: (error: unknown) => void;
}

/** Plan here instead (the thread failed on it or is gone); an error reaches the recorder's log. */
function planHere(job: Job): void {
  try {
    job.resolve(planExchange(job.exchange));
  } catch (error) {
    job.reject(error);
  }
}

interface PlanThread {
  worker: Worker | null;
  /** the thread has loaded its code; until then exchanges are planned here, never held for it */
  ready: boolean;
  jobs: Map<number, Job>;
  nextId: number;
  /** the thread could not start or died: plan on this thread from now on */
  broken: boolean;
}

const KEY = Symbol.for('entity-memory.proxy-plan-thread');
const holder = globalThis as typeof globalThis & { [KEY]?: PlanThread };
const versions = process.versions as Record<string, string | undefined>;

function startWorker(): Worker {
  const entry = join(process.cwd(), 'server', 'proxy', 'plan-worker.ts');
  if (versions['bun'] || versions['deno']) return new Worker(entry);
  // Node: TypeScript through tsx, registered inside the thread (execArgv's --import is not applied to a worker's entry on Node 20).
  const url = JSON.stringify(pathToFileURL(entry).href);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${url}); })`, { eval: true, execArgv: [] });
}

function thread(): PlanThread {
  const state = (holder[KEY] ??= { worker: null, ready: false, jobs: new Map(), nextId: 1, broken: process.env['OPENPROGRAM_PROXY_PLAN_THREAD'] === '0' });
  if (state.worker || state.broken) return state;
  let worker: Worker;
  try {
    worker = startWorker();
  } catch (error) {
    console.error(`[proxy] the planning thread could not start (${(error as Error).message}); planning on the request thread`);
    state.broken = true;
    return state;
  }
  // An idle thread must not keep a test or a CLI process alive.
  worker.unref();
  worker.on('message', (message: { id?: number; ready?: boolean; plan?: PlannedExchange; error?: string }) => {
    if (message.ready) state.ready = true;
    if (message.id === undefined) return;
    const job = state.jobs.get(message.id);
    if (!job) return;
    state.jobs.delete(message.id);
    if (message.plan) job.resolve(message.plan);
    else planHere(job);
  });
  const lost = (error?: unknown) => {
    if (state.worker !== worker) return;
    console.error('[proxy] the planning thread stopped; planning on the request thread:', (error as Error | undefined)?.message ?? 'exited');
    state.worker = null;
    state.ready = false;
    state.broken = true;
    // Nothing in flight is lost: what the thread held is planned here.
    for (const [id, job] of state.jobs) {
      state.jobs.delete(id);
      planHere(job);
    }
  };
  worker.on('error', lost);
  worker.on('exit', () => lost());
  state.worker = worker;
  return state;
}

/** Starts the planning thread (at the first proxied request, while it is forwarded), so the first recording does not wait for it. */
export function warmPlanThread(): void {
  thread();
}

/**
 * Plan one exchange in the planning thread (in arrival order: one thread answers in order), or
 * here if that thread is not available. The bytes are copied, not moved: the caller may still hold them.
 */
export function planOffThread(exchange: ExchangeBytes): Promise<PlannedExchange> {
  const state = thread();
  if (!state.worker || !state.ready) return new Promise((resolve, reject) => setImmediate(() => planHere({ exchange, resolve, reject })));
  const id = state.nextId++;
  return new Promise<PlannedExchange>((resolve, reject) => {
    state.jobs.set(id, { exchange, resolve, reject });
    // While a job is pending the thread keeps the process up, so the recording finishes.
    state.worker!.ref();
    state.worker!.postMessage({ id, exchange });
  }).finally(() => {
    if (state.jobs.size === 0) state.worker?.unref();
  });
}
