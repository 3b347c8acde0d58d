import { MoveEngine } from '../lib/cluster/move/index.js';
import { twoInstances, USER } from '../lib/cluster/move/testing/fixture.js';
import { measured } from './figures.js';
import { scratchDir } from './scratch.js';

const SESSIONS = Number(process.env.BENCH_MOVE_SESSIONS ?? 1_000);

/**
 * move_freeze_ms_1k (DESIGN §9, issue 22): how long a user of 1,000 sessions (3 messages each)
 * has their writes refused while moved between two data directories on this machine: from the
 * freeze request (the wait for writes still running included) →
 * final copy (rsync, size and mtime) → verify (registry, heads, git fsck of the repos the final copy
 * wrote or the pre-copy check did not find clean) → flip.
 */
export async function benchMove(): Promise<Record<string, number>> {
  const world = twoInstances(scratchDir('em-bench-move-'));
  const store = await world.a.store(USER);
  for (let i = 0; i < SESSIONS; i++) {
    const { row } = await store.createSession({});
    for (let m = 0; m < 3; m++) await store.appendMessage(row.id, { role: m % 2 ? 'assistant' : 'user', content: `message ${m} of session ${i}` });
  }
  const engine = new MoveEngine({ directory: world.directory, journal: world.journal, control: async (id) => (id === 'a' ? world.a : world.b).control() });
  const move = await engine.start(USER, 'b');
  await world.b.closeAll();
  const took = Object.fromEntries(move.finished.map((step) => [step.step, step.ms]));
  process.stderr.write(`bench: move steps (ms) ${JSON.stringify(took)}; verify fscked ${move.verified?.fscked ?? '?'} of ${move.verified?.repos ?? '?'} repos (the rest clean at the pre-copy, not written since)\n`);
  return { move_freeze_ms_1k: measured('move_freeze_ms_1k', move.freezeMs, 'the move set no freeze time (its flip was not made by this run)'), move_total_ms_1k: move.finished.reduce((sum, step) => sum + step.ms, 0) };
}
