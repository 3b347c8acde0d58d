/**
 * The registry at 100,000 sessions: what one rename costs, and the event loop's longest block
 * while renames, an append load and the log's compactions run on that user's store.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { SessionStore } from '../lib/store/index.js';
import { ensureLogDir, recordLine, segmentName } from '../lib/store/registry/registry-log.js';
import { normaliseEntry } from '../lib/store/registry/entry.js';
import { runBulk } from '../lib/store/operations/bulk.js';
import { scratchDir } from './scratch.js';
import { p50, round, writeLargeIndex } from './store-bench.js';

/** A crashed run's log: `count` renames of the large index's sessions, for start-up to replay. */
export function writeLargeLog(stateDir: string, count: number): void {
  const sessionsDir = join(stateDir, 'sessions');
  ensureLogDir(sessionsDir);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `bench-${(i * 97).toString(36).padStart(6, '0')}`;
    const entry = normaliseEntry(id, { title: `Renamed ${i}`, created_at: 1_790_000_000, updated_at: 1_790_000_000 + i }, 'default');
    lines.push(recordLine({ op: 'set', entry }));
  }
  writeFileSync(join(sessionsDir, segmentName(1)), lines.join(''));
}

/** Longest event-loop block (ms) while `work` runs; the histogram's 1 ms resolution is its floor. */
export async function loopBlockDuring(work: () => Promise<void>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  try {
    await work();
  } finally {
    histogram.disable();
  }
  return histogram.max / 1e6;
}

/** 200 renames one after another while four conversations stream; returns each rename's time. */
async function renamesUnderLoad(store: SessionStore, ids: string[], appenders: string[], offset: number): Promise<number[]> {
  const updates: number[] = [];
  let renaming = true;
  // Four conversations streaming: a message every 10 ms each (400 a second in all). Appends are
  // synchronous file writes behind microtasks, so an unpaced loop would only measure itself.
  const load = appenders.map(async (id) => {
    for (let i = 0; renaming; i++) {
      await store.appendMessage(id, { role: i % 2 ? 'assistant' : 'user', content: `message ${offset + i}` });
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  });
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    await store.updateSession(ids[i % ids.length]!, { title: `Renamed ${offset + i}` });
    updates.push(performance.now() - start);
  }
  renaming = false;
  await Promise.all(load);
  return updates;
}

export async function benchRegistry(): Promise<Record<string, number>> {
  const stateDir = scratchDir('em-bench-registry-');
  writeLargeIndex(stateDir, 100_000);
  const ids = Array.from({ length: 20 }, (_, i) => `rename-${i}`);
  const appenders = Array.from({ length: 4 }, (_, i) => `append-${i}`);
  const bulk = Array.from({ length: 200 }, (_, i) => `bulk-${i}`);
  let store = await SessionStore.open({ stateDir });
  for (const id of [...ids, ...appenders, ...bulk]) await store.createSession({ id });
  await store.close();

  // With the default log bound (4 MB: thousands of renames) no compaction falls in this window.
  store = await SessionStore.open({ stateDir });
  let updates: number[] = [];
  const blockMs = await loopBlockDuring(async () => {
    updates = await renamesUnderLoad(store, ids, appenders, 0);
  });
  if (store.internals.registryCompactions > 0) throw new Error('a compaction ran in the rename window');

  // A search that matches nothing walks all 100,000 entries, synchronously (the API is).
  const misses: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    if (store.listSessions({ q: 'no such words anywhere', scope: 'all', limit: 50 }).rows.length > 0) throw new Error('search matched');
    misses.push(performance.now() - start);
  }

  // session.bulk of 200 ids, through the server's loop (a few ids at a time, shared log writes).
  let bulkMs = 0;
  const writesBefore = store.internals.registryWrites;
  const bulkBlockMs = await loopBlockDuring(async () => {
    const start = performance.now();
    const { done } = await runBulk(bulk, async (id) => (await store.setArchived(id, true)).archived);
    bulkMs = performance.now() - start;
    if (done.length !== bulk.length) throw new Error('bulk incomplete');
  });
  const bulkWrites = store.internals.registryWrites - writesBefore;
  await store.close();

  // The same renames with a bound so small that snapshots of the 100,000 entries run throughout.
  store = await SessionStore.open({ stateDir, compactBytes: 64 * 1024 });
  let compacting: number[] = [];
  const compactionBlockMs = await loopBlockDuring(async () => {
    compacting = await renamesUnderLoad(store, ids, appenders, 1_000);
    while (store.internals.registryCompactions === 0) await new Promise((resolve) => setTimeout(resolve, 20));
  });
  const compactions = store.internals.registryCompactions;
  await store.close();
  return {
    update_p50_ms_100k: p50(updates),
    loop_block_max_ms_100k: round(blockMs),
    list_q_miss_max_ms_100k: round(Math.max(...misses)),
    loop_block_max_ms_100k_bulk: round(bulkBlockMs),
    bulk_200_ms_per_id_100k: round(bulkMs / bulk.length),
    bulk_200_log_writes_100k: bulkWrites,
    update_p50_ms_100k_compacting: p50(compacting),
    loop_block_max_ms_100k_compacting: round(compactionBlockMs),
    registry_compactions_during_renames: compactions,
  };
}
