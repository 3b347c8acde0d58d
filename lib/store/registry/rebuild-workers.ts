import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { HISTORY_DIR, META_FILE } from '../repo/session-files.js';
import type { SessionMeta } from '../types.js';

/**
 * A rebuild's reads in worker threads (docs/decisions.md, "Rebuild in worker threads"): each
 * worker reads and parses one slice of the session directories synchronously, as the main thread
 * did in slices, and posts back only what an entry needs. The main thread only deserialises
 * small batches, so it stays free while 10,000 sessions are read on every core at once.
 *
 * The worker is plain JavaScript run with `eval`: no loader (tsx, vitest, a bundler) needs to
 * resolve a TypeScript file in a new thread. It mirrors rebuild.ts's readers exactly; the tests
 * compare both on the same directories.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const { candidates, metaFile, historyDir, nodeFile, batch } = workerData;
const NODE_FILE = new RegExp(nodeFile);
const readJson = (path) => {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
};
const newestUserOutput = (dir) => {
  let names;
  try {
    names = readdirSync(join(dir, historyDir));
  } catch {
    return null;
  }
  const users = [];
  for (const name of names) {
    const match = NODE_FILE.exec(name);
    if (match && match[2] === 'u') users.push({ name, seq: Number(match[1]) });
  }
  users.sort((a, b) => b.seq - a.seq);
  for (const file of users) {
    const node = readJson(join(dir, historyDir, file.name));
    if (node && node.role === 'user') return { output: node.output };
  }
  return null;
};
const KEYS = ['agent_id', 'title', 'created_at', 'updated_at', 'source', 'channel', 'account_id', 'peer_display', 'peer_id', 'pinned', 'archived', 'group', 'status', 'unread', 'project_id'];
let out = [];
for (let i = 0; i < candidates.length; i++) {
  const [dir, id] = candidates[i];
  const meta = readJson(join(dir, metaFile));
  let found = null;
  if (meta && !(typeof meta.id === 'string' && meta.id !== id)) {
    const fields = {};
    for (const key of KEYS) if (key in meta) fields[key] = meta[key];
    if ('preview' in meta) found = { fields, preview: typeof meta.preview === 'string' ? meta.preview : null };
    else found = { fields, node: newestUserOutput(dir) };
  }
  out.push(found);
  if (out.length === batch) {
    parentPort.postMessage(out);
    out = [];
  }
}
parentPort.postMessage(out);
parentPort.postMessage('done');
`;

/** What a worker found in one directory: meta.json's registry fields and the preview, or the newest user node's output. */
export type DirReading = { fields: SessionMeta; preview: string | null } | { fields: SessionMeta; node: { output: unknown } | null } | null;

/** Results travel in batches this big: each one deserialises in well under a millisecond. */
const BATCH = 200;

export function rebuildWorkerCount(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** Read `candidates` ([dir, id]) on `workers` threads; results in candidates' order. */
export async function readDirsInWorkers(candidates: readonly [string, string][], workers = rebuildWorkerCount()): Promise<DirReading[]> {
  const results: DirReading[] = new Array(candidates.length).fill(null);
  const size = Math.ceil(candidates.length / workers);
  const runs: Promise<void>[] = [];
  for (let start = 0; start < candidates.length; start += size) {
    const slice = candidates.slice(start, start + size);
    runs.push(
      new Promise<void>((resolve, reject) => {
        let next = start;
        const worker = new Worker(WORKER_SOURCE, {
          eval: true,
          workerData: { candidates: slice, metaFile: META_FILE, historyDir: HISTORY_DIR, nodeFile: '^(\\d+)-([A-Za-z])-(.+)\\.json$', batch: BATCH },
          // The parent's loader flags (tsx) are not needed for plain JavaScript and cost start-up time.
          execArgv: [],
        });
        worker.on('message', (message: DirReading[] | 'done') => {
          if (message === 'done') {
            resolve();
            void worker.terminate();
            return;
          }
          for (const reading of message) results[next++] = reading;
        });
        worker.once('error', reject);
        worker.once('exit', (code) => (code === 0 || next === start + slice.length ? resolve() : reject(new Error(`rebuild worker exited with ${code}`))));
      }),
    );
  }
  await Promise.all(runs);
  return results;
}
