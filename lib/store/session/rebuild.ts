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
 * Without workers a rebuild reads synchronously in slices of this long, then yields to the event
 * loop: three small files a session cost ~25 µs read synchronously against ~140 µs through the
 * thread pool, and the slices keep other users' requests flowing.
 */
const SLICE_MS = 8;
/**
 * From this many sessions on, two worker threads read the files: 10,000 sessions in ~200 ms
 * against ~280 ms on one thread (a third thread does not help: the kernel's per-file work is the
 * limit), and the event loop stays free meanwhile.
 */
const WORKER_MIN_SESSIONS = 2_000;
const WORKER_BATCH = 500;

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

/** Every directory's files, read by two worker threads; null when they cannot run (→ the main thread). */
async function readInWorkers(dirs: readonly string[]): Promise<(SessionFiles | null)[] | null> {
  const results: (SessionFiles | null)[] = new Array(dirs.length).fill(null);
  const workers: Worker[] = [];
  let next = 0;
  const drain = (worker: Worker): Promise<void> =>
    new Promise((resolve, reject) => {
      let start = 0;
      const take = (): void => {
        if (next >= dirs.length) return resolve();
        start = next;
        next = Math.min(dirs.length, next + WORKER_BATCH);
        worker.postMessage(dirs.slice(start, next));
      };
      worker.on('message', (batch: (SessionFiles | null)[]) => {
        for (let i = 0; i < batch.length; i++) results[start + i] = batch[i]!;
        take();
      });
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`rebuild worker exited with ${code}`)));
      take();
    });
  try {
    for (let i = 0; i < 2; i++) workers.push(new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { pattern: NODE_FILE_PATTERN.source } }));
    await Promise.all(workers.map(drain));
    return results;
  } catch {
    return null;
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
}

/** The same on the main thread, in slices. */
async function readInSlices(dirs: readonly string[]): Promise<(SessionFiles | null)[]> {
  const results: (SessionFiles | null)[] = [];
  let started = performance.now();
  for (const dir of dirs) {
    results.push(readSessionFiles(fs, dir, NODE_FILE_PATTERN, mainScratch));
    if (performance.now() - started > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      started = performance.now();
    }
  }
  return results;
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
export async function rebuildEntries(ctx: StoreContext, report: { readBy?: 'workers' | 'main thread' } = {}): Promise<RegistryEntry[]> {
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

  const dirs = candidates.map((candidate) => candidate.dir);
  const useWorkers = dirs.length >= WORKER_MIN_SESSIONS && availableParallelism() > 1;
  const inWorkers = useWorkers ? await readInWorkers(dirs) : null;
  report.readBy = inWorkers ? 'workers' : 'main thread';
  const files = inWorkers ?? (await readInSlices(dirs));
  const found = files.map((sessionFiles, index) => entryFromFiles(sessionFiles, candidates[index]!.id));

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
