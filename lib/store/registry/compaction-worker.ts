import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { RegistryEntry } from '../types.js';

/**
 * Compaction off the main thread (docs/decisions.md, "Compaction in a worker"). The worker keeps
 * a mirror of the registry's entries, fed once from a snapshot (in small structured-clone slices)
 * and afterwards by the same record lines the log gets, in the same order. A compaction is then
 * one small message: the worker turns its mirror into index.json text and writes and fsyncs the
 * temporary file; the main thread only renames it. Map order is insertion order in both maps, and
 * both apply the same operations, so the text is byte for byte Registry.serialize()'s.
 *
 * Plain JavaScript run with `eval`: no loader has to resolve TypeScript in the new thread.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { openSync, writeSync, fdatasyncSync, fsyncSync, closeSync, unlinkSync } = require('node:fs');
const SYNC_EVERY = 4 << 20;
const entries = new Map();
let state = 'empty';
let queue = [];
const chunkOf = (entry) => '  ' + JSON.stringify(entry.id) + ': ' + JSON.stringify(entry, null, 2).replace(/\\n/g, '\\n  ');
const apply = (text) => {
  for (const line of text.split('\\n')) {
    if (line === '') continue;
    const record = JSON.parse(line);
    if (record.op === 'delete') entries.delete(record.id);
    else entries.set(record.entry.id, record.entry);
  }
};
const write = (tmp, mode) => {
  const fd = openSync(tmp, 'w', mode);
  try {
    if (entries.size === 0) writeSync(fd, '{}');
    let parts = [];
    let chars = 0;
    let unsynced = 0;
    let first = true;
    const flush = (last) => {
      writeSync(fd, (first ? '{\\n' : ',\\n') + parts.join(',\\n') + (last ? '\\n}' : ''));
      first = false;
      unsynced += chars;
      if (unsynced > SYNC_EVERY) { fdatasyncSync(fd); unsynced = 0; }
      parts = [];
      chars = 0;
    };
    let left = entries.size;
    for (const entry of entries.values()) {
      const chunk = chunkOf(entry);
      parts.push(chunk);
      chars += chunk.length;
      left--;
      if (left === 0 || chars > (1 << 18)) flush(left === 0);
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    try { unlinkSync(tmp); } catch {}
    throw error;
  }
  closeSync(fd);
};
parentPort.on('message', (message) => {
  if (message.t === 'begin') { entries.clear(); queue = []; state = 'loading'; }
  else if (message.t === 'chunk') { for (const entry of message.entries) entries.set(entry.id, entry); }
  else if (message.t === 'end') { for (const text of queue) apply(text); queue = []; state = 'ready'; }
  else if (message.t === 'records') {
    if (state === 'loading') queue.push(message.text);
    else if (state === 'ready') apply(message.text);
  } else if (message.t === 'write') {
    try { write(message.tmp, message.mode); parentPort.postMessage({ t: 'written', id: message.id }); }
    catch (error) { parentPort.postMessage({ t: 'failed', id: message.id, message: String(error && error.message) }); }
  }
});
`;

/** Structured-clone slices of the first snapshot hold the main thread at most about this long. */
const SLICE_MS = 2;
const SLICE_ENTRIES = 256;

export class CompactionWorker {
  private readonly worker: Worker;
  /** false until the mirror has been fed a snapshot; records before that are dropped by the worker */
  private loaded = false;
  private loading: Promise<void> | null = null;
  private broken: Error | null = null;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [] });
    this.worker.unref();
    this.worker.on('message', (message: { t: string; id: number; message?: string }) => {
      const waiter = this.waiting.get(message.id);
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (message.t === 'written') waiter.resolve();
      else waiter.reject(new Error(`compaction worker: ${message.message}`));
    });
    const fail = (error: Error): void => {
      this.broken ??= error;
      for (const waiter of this.waiting.values()) waiter.reject(error);
      this.waiting.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('compaction worker exited')));
  }

  get usable(): boolean {
    return this.broken === null;
  }

  /** The log's record lines, in the order they were taken from the registry. */
  records(text: string): void {
    if (text !== '' && this.broken === null) this.worker.postMessage({ t: 'records', text });
  }

  /** Feed the mirror once: `entries` is the registry at this instant; records posted from now on come after it. */
  private load(entries: readonly RegistryEntry[]): Promise<void> {
    this.loading ??= (async () => {
      this.worker.postMessage({ t: 'begin' });
      let index = 0;
      while (index < entries.length) {
        const started = performance.now();
        while (index < entries.length && performance.now() - started < SLICE_MS) {
          this.worker.postMessage({ t: 'chunk', entries: entries.slice(index, index + SLICE_ENTRIES) });
          index += SLICE_ENTRIES;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      this.worker.postMessage({ t: 'end' });
      this.loaded = true;
    })();
    return this.loading;
  }

  /**
   * Write the mirror (as of this call) to `tmp`, fsynced. `snapshot` is asked for the registry's
   * entries only the first time, synchronously, so the mirror starts from this very instant.
   */
  async write(tmp: string, mode: number, snapshot: () => readonly RegistryEntry[]): Promise<void> {
    if (this.broken) throw this.broken;
    if (!this.loaded) await this.load(snapshot());
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => this.waiting.set(id, { resolve, reject }));
    this.worker.postMessage({ t: 'write', id, tmp, mode });
    return done;
  }

  async terminate(): Promise<void> {
    this.broken ??= new Error('compaction worker stopped');
    await this.worker.terminate();
  }
}
