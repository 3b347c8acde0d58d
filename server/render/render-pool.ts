import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../background/worker-threads';
import { RENDER_NICE, type PlainReason, type WorkerAnswer } from './render-protocol';

/**
 * How long one message may take to render. Ordinary messages take milliseconds and a long reply
 * with a lot of code a few hundred; past this the worker is stopped and the message shown as text.
 */
export const RENDER_DEADLINE_MS = 2_500;

/** What rendering a message gave: its HTML, or why it is shown as plain text (see PlainReason). */
export type RenderOutcome = { html: string } | { plain: PlainReason | 'unavailable' };

export interface RenderPoolOptions {
  /** worker threads; by default two (see RenderPool) */
  size?: number;
  deadlineMs?: number;
  /** the worker's entry module (tests); by default server/render/render-worker.ts */
  entry?: string;
}

interface Job {
  id: number;
  owner: string;
  text: string;
  resolve: (outcome: RenderOutcome) => void;
}

/** An owner's waiting jobs, kept while any is waiting or running, so its turn is remembered. */
interface Owner {
  jobs: Job[];
  running: number;
  /** dispatch number of its last job started; 0 for none */
  lastServed: number;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** settles when the worker is ready or gone */
  started: Promise<void>;
  markStarted: () => void;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/**
 * Markdown and highlighting off the request threads: worker threads (~85 MB each), each rendering
 * one message at a time under a deadline. A worker past the deadline is terminated (it could keep
 * a core busy for minutes) and a new one started. Queued messages are taken from the owner served
 * longest ago, and no owner holds more than all workers but one: two by default, so one user's
 * slow messages can hold one worker while the other stays free for everyone else. Ordinary
 * messages render in milliseconds, so one worker is plenty for one user's pages.
 */
export class RenderPool {
  readonly #size: number;
  readonly #deadlineMs: number;
  readonly #entry: string;
  readonly #slots = new Set<Slot>();
  readonly #owners = new Map<string, Owner>();
  #nextId = 1;
  #dispatched = 0;
  #closed = false;
  /** counts, for tests and the bench */
  readonly counts = { rendered: 0, replaced: 0 };

  constructor(options: RenderPoolOptions = {}) {
    this.#size = options.size ?? 2;
    this.#deadlineMs = options.deadlineMs ?? RENDER_DEADLINE_MS;
    this.#entry = options.entry ?? join(process.cwd(), 'server', 'render', 'render-worker.ts');
  }

  /** Renders `text` for `owner` (whose turn in the queue it takes). Never rejects. */
  render(owner: string, text: string): Promise<RenderOutcome> {
    if (this.#closed) return Promise.resolve({ plain: 'unavailable' });
    return new Promise((resolve) => {
      const job: Job = { id: this.#nextId++, owner, text, resolve };
      const known = this.#owners.get(owner);
      if (known) known.jobs.push(job);
      else this.#owners.set(owner, { jobs: [job], running: 0, lastServed: 0 });
      this.#fill();
      this.#dispatch();
    });
  }

  /** Starts the workers now; resolves once each is ready or has failed to start. */
  async warm(): Promise<void> {
    this.#fill();
    await Promise.all([...this.#slots].map((slot) => slot.started));
  }

  /** Stops every worker; waiting and running renders answer `unavailable`. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#failQueued();
    const stopping = [...this.#slots].map((slot) => this.#drop(slot, 'unavailable'));
    await Promise.all(stopping);
  }

  #fill(): void {
    while (!this.#closed && this.#slots.size < this.#size) this.#spawn();
  }

  #spawn(): void {
    let markStarted = () => {};
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    // Ample for the largest message rendered (markdown.ts caps the size); a leak ends this thread, not the server.
    const worker = startWorker(this.#entry, { nice: RENDER_NICE, resourceLimits: { maxOldGenerationSizeMb: 256 } });
    const slot: Slot = { worker, ready: false, started, markStarted, job: null, timer: null };
    // Idle workers must not keep a CLI or a test process alive.
    slot.worker.unref();
    this.#slots.add(slot);
    slot.worker.on('message', (answer: WorkerAnswer) => this.#answered(slot, answer));
    const lost = (error?: unknown) => {
      if (!this.#slots.has(slot)) return;
      const wasReady = slot.ready;
      void this.#drop(slot, 'failed');
      if (!wasReady) {
        // It died starting: starting another now would only die the same way, in a loop. The next
        // render tries again; without a worker that can take them, the waiting ones are shown as text.
        console.error('[render] a render worker failed to start:', error ?? 'exited');
        if (![...this.#slots].some((other) => other.ready)) this.#failQueued();
        return;
      }
      this.counts.replaced++;
      this.#fill();
      this.#dispatch();
    };
    slot.worker.on('error', lost);
    slot.worker.on('exit', () => lost());
  }

  #answered(slot: Slot, answer: WorkerAnswer): void {
    if ('ready' in answer) {
      slot.ready = true;
      slot.markStarted();
      this.#dispatch();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== answer.id) return;
    clearTimeout(slot.timer!);
    slot.timer = null;
    this.counts.rendered++;
    this.#finish(slot, 'html' in answer ? { html: answer.html } : { plain: answer.failure });
    this.#dispatch();
  }

  /** Gives each idle ready worker the next job, taking owners in turn. */
  #dispatch(): void {
    for (const slot of this.#slots) {
      if (!slot.ready || slot.job) continue;
      const job = this.#nextJob();
      if (!job) return;
      slot.job = job;
      const owner = this.#owners.get(job.owner)!;
      owner.running++;
      owner.lastServed = ++this.#dispatched;
      slot.timer = setTimeout(() => this.#overran(slot), this.#deadlineMs);
      slot.worker.postMessage({ id: job.id, text: job.text });
    }
  }

  /** The first waiting job of the owner served longest ago, among those below their share of workers. */
  #nextJob(): Job | undefined {
    const share = Math.max(1, this.#size - 1);
    let next: Owner | undefined;
    for (const owner of this.#owners.values()) {
      if (owner.jobs.length > 0 && owner.running < share && (!next || owner.lastServed < next.lastServed)) next = owner;
    }
    return next?.jobs.shift();
  }

  /** Answers the slot's job and forgets its owner once nothing of theirs waits or runs. */
  #finish(slot: Slot, outcome: RenderOutcome): void {
    const job = slot.job;
    if (!job) return;
    slot.job = null;
    job.resolve(outcome);
    const owner = this.#owners.get(job.owner);
    if (owner && --owner.running === 0 && owner.jobs.length === 0) this.#owners.delete(job.owner);
  }

  #overran(slot: Slot): void {
    if (!this.#slots.has(slot)) return;
    this.counts.replaced++;
    void this.#drop(slot, 'deadline');
    this.#fill();
    this.#dispatch();
  }

  /** Takes the slot out (its job answers `reason`) and terminates its worker. */
  #drop(slot: Slot, reason: PlainReason | 'unavailable'): Promise<void> {
    this.#slots.delete(slot);
    slot.markStarted();
    if (slot.timer) clearTimeout(slot.timer);
    this.#finish(slot, { plain: reason });
    return slot.worker.terminate().then(
      () => undefined,
      () => undefined,
    );
  }

  #failQueued(): void {
    for (const [name, owner] of this.#owners) {
      for (const job of owner.jobs.splice(0)) job.resolve({ plain: 'unavailable' });
      if (owner.running === 0) this.#owners.delete(name);
    }
  }
}

const shared = globalThis as typeof globalThis & { __emRenderPool?: RenderPool };

/** The process's one pool, on globalThis: Next may load this module more than once. */
export function renderPool(): RenderPool {
  shared.__emRenderPool ??= new RenderPool();
  return shared.__emRenderPool;
}
