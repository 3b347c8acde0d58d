import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { isProjectId, isSessionId } from '../ids.js';
import { NODE_FILE_PATTERN } from '../repo/session-files.js';
import { type StoreContext } from './store-context.js';
import { PROJECTS_DIR, defaultRepoDir, saveLocations } from './locations.js';
import type { RegistryEntry, SessionMeta } from '../types.js';
import { entryFromMeta } from '../registry/entry.js';
import { previewOf } from '../registry/preview.js';

/**
 * The main thread reads synchronously in slices of this long, then yields to the event loop:
 * three small files a session cost ~25 µs read synchronously against ~140 µs through the thread
 * pool, and the slices keep other users' requests flowing.
 */
const SLICE_MS = 8;
/**
 * From this many sessions on, worker threads (one per core beyond this one, at most 3) read from
 * the front of the list while the main thread reads from the back. The kernel's per-file work is
 * the limit, so threads beyond the cores only add their ~35 ms start: on 2 cores one worker plus
 * this thread beat two workers.
 */
const WORKER_MIN_SESSIONS = 2_000;
/** Batches shrink towards the end so that neither side waits long for the other's last one. */
const WORKER_BATCH_MAX = 500;
const WORKER_BATCH_MIN = 50;
/** Batches posted ahead: the worker never idles while this thread is inside a slice. */
const WORKER_BATCHES_AHEAD = 2;

/** What a session directory says about its registry entry. */
interface SessionFiles {
  meta: Record<string, unknown>;
  /** the newest user node's output, read only when meta.json has no preview (OpenProgram's has none) */
  userOutput?: unknown;
}

type RebuildFs = Pick<typeof fs, 'openSync' | 'readSync' | 'closeSync' | 'fstatSync' | 'readdirSync'>;

/**
 * meta.json, and the newest user node when meta.json has no preview. Runs on the main thread and,
 * as source text, in the rebuild workers: it uses nothing but its arguments and globals.
 */
function readSessionFiles(files: RebuildFs, dir: string, nodeFile: RegExp, scratch: { buffer: Buffer }): SessionFiles | null {
  // One buffer for every small file: open, read, close (readFileSync also stats and allocates).
  const readJson = (path: string): unknown => {
    let fd: number;
    try {
      fd = files.openSync(path, 'r');
    } catch {
      return null;
    }
    try {
      let length = files.readSync(fd, scratch.buffer, 0, scratch.buffer.length, 0);
      if (length === scratch.buffer.length) {
        scratch.buffer = Buffer.allocUnsafe(files.fstatSync(fd).size + 1);
        length = files.readSync(fd, scratch.buffer, 0, scratch.buffer.length, 0);
      }
      return JSON.parse(scratch.buffer.toString('utf8', 0, length));
    } catch {
      return null;
    } finally {
      files.closeSync(fd);
    }
  };
  const meta = readJson(`${dir}/meta.json`);
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return null;
  const found: SessionFiles = { meta: meta as Record<string, unknown> };
  if ('preview' in meta) return found;
  let names: string[];
  try {
    names = files.readdirSync(`${dir}/history`);
  } catch {
    return found;
  }
  const users: [number, string][] = [];
  for (const name of names) {
    const match = nodeFile.exec(name);
    if (match && match[2] === 'u') users.push([Number(match[1]), name]);
  }
  users.sort((a, b) => b[0] - a[0]);
  for (const [, name] of users) {
    const node = readJson(`${dir}/history/${name}`); // a torn file: try the one before
    if (node !== null && typeof node === 'object' && (node as { role?: unknown }).role === 'user') {
      found.userOutput = (node as { output?: unknown }).output;
      break;
    }
  }
  return found;
}

const mainScratch = { buffer: Buffer.allocUnsafe(64 * 1024) };

function entryFromFiles(files: SessionFiles | null, id: string): RegistryEntry | null {
  if (!files || (typeof files.meta['id'] === 'string' && files.meta['id'] !== id)) return null;
  const meta = files.meta as unknown as SessionMeta;
  const preview = 'preview' in files.meta ? (typeof meta.preview === 'string' ? meta.preview : null) : previewOf(files.userOutput);
  return entryFromMeta(meta, id, preview);
}

/** The entry a session directory implies, or null when it holds no session with this id. */
export function entryFromDir(dir: string, id: string): RegistryEntry | null {
  return entryFromFiles(readSessionFiles(fs, dir, NODE_FILE_PATTERN, mainScratch), id);
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const __name = (target) => target; // the transpiler's keepNames helper, should the source use it
const readSessionFiles = (${readSessionFiles.toString()});
const nodeFile = new RegExp(workerData.pattern);
const scratch = { buffer: Buffer.allocUnsafe(64 * 1024) };
parentPort.on('message', (dirs) => parentPort.postMessage(dirs.map((dir) => readSessionFiles(fs, dir, nodeFile, scratch))));
`;

/** The part of the list not read yet: the worker takes from the front, this thread from the back. */
interface Unread {
  front: number;
  back: number;
}

export interface RebuildOptions {
  /** how many directories the worker threads read (for the tests) */
  report?: { readByWorkers?: number };
  /** another reader thread (for the tests: one that fails) */
  startWorker?: () => Worker;
}

function startReadWorker(): Worker {
  return new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { pattern: NODE_FILE_PATTERN.source } });
}

/**
 * Worker threads read batches from the front of `unread` until it is used up, each with a few
 * batches posted ahead. Resolves once they stop; a batch lost with a failed thread is never
 * `received`, for the main thread to read.
 */
function readInWorkers(
  dirs: readonly string[],
  received: (index: number, files: SessionFiles | null) => void,
  unread: Unread,
  count: number,
  start: () => Worker,
  report: { readByWorkers?: number },
): Promise<void> {
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      let worker: Worker;
      try {
        worker = start();
      } catch {
        return resolve();
      }
      const posted: [number, number][] = []; // answered in order
      let stopped = false;
      const stop = (): void => {
        if (stopped) return;
        stopped = true;
        void worker.terminate().catch(() => undefined);
        resolve();
      };
      const post = (): void => {
        while (posted.length < WORKER_BATCHES_AHEAD && unread.front < unread.back) {
          const size = Math.max(WORKER_BATCH_MIN, Math.min(WORKER_BATCH_MAX, Math.ceil((unread.back - unread.front) / 8)));
          const from = unread.front;
          const to = Math.min(unread.back, from + size);
          unread.front = to;
          posted.push([from, to]);
          worker.postMessage(dirs.slice(from, to));
        }
        if (posted.length === 0) stop();
      };
      worker.on('message', (batch: (SessionFiles | null)[]) => {
        const range = posted.shift();
        if (stopped || !range || !Array.isArray(batch) || batch.length !== range[1] - range[0]) return stop();
        const [from] = range;
        for (let i = 0; i < batch.length; i++) received(from + i, batch[i]!);
        report.readByWorkers = (report.readByWorkers ?? 0) + batch.length;
        post();
      });
      worker.on('error', stop);
      worker.on('exit', stop);
      post();
    });
  return Promise.all(Array.from({ length: count }, one)).then(() => undefined);
}

/**
 * Every directory's entry (null: no session with that id there): this thread reads in slices,
 * with worker threads' help for a large store. Each reading becomes its entry as it arrives, so
 * that work is shared out like the reading and nothing waits for it at the end.
 */
async function readAll(dirs: readonly string[], ids: readonly string[], options: RebuildOptions): Promise<(RegistryEntry | null)[]> {
  const results: (RegistryEntry | null | undefined)[] = new Array(dirs.length);
  const unread: Unread = { front: 0, back: dirs.length };
  const workerCount = dirs.length >= WORKER_MIN_SESSIONS ? Math.min(3, availableParallelism() - 1) : 0;
  const received = (index: number, files: SessionFiles | null): void => {
    results[index] = entryFromFiles(files, ids[index]!);
  };
  const workers = workerCount > 0 ? readInWorkers(dirs, received, unread, workerCount, options.startWorker ?? startReadWorker, options.report ?? {}) : null;
  const readSlices = async (next: () => number | null): Promise<void> => {
    let started = performance.now();
    for (let index = next(); index !== null; index = next()) {
      received(index, readSessionFiles(fs, dirs[index]!, NODE_FILE_PATTERN, mainScratch));
      if (performance.now() - started > SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        started = performance.now();
      }
    }
  };
  await readSlices(() => (unread.back > unread.front ? --unread.back : null));
  await workers;
  // What a failed worker left unread.
  let hole = 0;
  await readSlices(() => {
    while (hole < dirs.length && results[hole] !== undefined) hole++;
    return hole < dirs.length ? hole++ : null;
  });
  return results as (RegistryEntry | null)[];
}

function directories(dir: string): string[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * Every valid session: default layout, project layout and locations.json, read in time slices
 * so other users' requests keep being served while one user's registry is rebuilt.
 */
export async function rebuildEntries(ctx: StoreContext, options: RebuildOptions = {}): Promise<RegistryEntry[]> {
  const candidates: { dir: string; id: string; project: boolean }[] = [];
  const add = (dir: string, id: string, project = false): void => {
    candidates.push({ dir, id, project });
  };
  for (const name of directories(ctx.sessionsDir)) {
    if (name === PROJECTS_DIR || name.startsWith('.') || !isSessionId(name)) continue;
    add(defaultRepoDir(ctx, name), name);
  }
  for (const projectId of directories(join(ctx.sessionsDir, PROJECTS_DIR))) {
    if (!isProjectId(projectId)) continue;
    for (const name of directories(join(ctx.sessionsDir, PROJECTS_DIR, projectId))) {
      if (isSessionId(name)) add(join(ctx.sessionsDir, PROJECTS_DIR, projectId, name), name, true);
    }
  }
  for (const [id, dir] of ctx.locations) add(dir, id);

  const found = await readAll(
    candidates.map((candidate) => candidate.dir),
    candidates.map((candidate) => candidate.id),
    options,
  );

  // The first valid directory of an id wins: default layout, then projects, then locations.json.
  const entries = new Map<string, RegistryEntry>();
  let locationsChanged = false;
  for (let i = 0; i < candidates.length; i++) {
    const entry = found[i];
    if (!entry || entries.has(entry.id)) continue;
    entries.set(entry.id, entry);
    const { dir, id, project } = candidates[i]!;
    if (project && !ctx.locations.has(id)) {
      ctx.locations.set(id, dir);
      locationsChanged = true;
    }
  }
  if (locationsChanged) saveLocations(ctx);
  return [...entries.values()];
}
