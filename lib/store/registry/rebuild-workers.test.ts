import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { tempDir } from '../testing/temp-store.js';
import { readEntriesInSlices, readEntriesInWorkers, WORKER_REBUILD_MIN } from './rebuild.js';

/** Session directories of every shape a rebuild meets; returns [dir, id] candidates. */
function seedDirs(sessionsDir: string, count: number): { dir: string; id: string }[] {
  const candidates: { dir: string; id: string }[] = [];
  const node = (seq: number, role: string, output: unknown): string =>
    JSON.stringify({ id: `n${seq}`, created_at: 1, seq, role, name: '', input: null, output, caller: '', predecessor: null, reads: [], metadata: {} });
  for (let i = 0; i < count; i++) {
    const id = `s${i}`;
    const dir = join(sessionsDir, id);
    candidates.push({ dir, id });
    mkdirSync(join(dir, 'history'), { recursive: true });
    const kind = i % 7;
    const meta: Record<string, unknown> = { id, title: `t${i}`, created_at: 1_790_000_000 + i, updated_at: 1_790_000_000 + i, pinned: i % 2 === 0, head_id: 'n1', messages: ['not an entry field'] };
    if (kind === 0) meta['preview'] = `kept ${i}`;
    if (kind === 1) meta['id'] = 'someone-else';
    if (kind === 2) {
      writeFileSync(join(dir, 'meta.json'), '{"id": "torn');
      continue;
    }
    if (kind === 3) meta['status'] = 42; // wrong type: defaulted
    writeFileSync(join(dir, 'meta.json'), JSON.stringify(meta));
    writeFileSync(join(dir, 'history', '000000-u-n0.json'), node(0, 'user', `older ${i}`));
    writeFileSync(join(dir, 'history', '000001-a-n1.json'), node(1, 'assistant', 'a reply'));
    // The newest user node torn in some: the one before gives the preview.
    writeFileSync(join(dir, 'history', '000002-u-n2.json'), kind === 4 ? '{"role": "us' : node(2, 'user', `  newest\n${'x'.repeat(i % 100)} ${i}`));
  }
  return candidates;
}

describe('rebuild in worker threads', () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

  it('finds exactly the entries the main-thread reader finds, in the same order', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const candidates = seedDirs(join(temp.dir, 'sessions'), 120);
    candidates.push({ dir: join(temp.dir, 'sessions', 'absent'), id: 'absent' });
    const inThread = await readEntriesInSlices(candidates);
    expect(inThread.filter(Boolean).length).toBeGreaterThan(80);
    expect(inThread.some((entry) => entry?.preview?.startsWith('newest'))).toBe(true);
    expect(inThread.some((entry) => entry?.preview?.startsWith('older'))).toBe(true);
    for (const workers of [1, 3]) expect(await readEntriesInWorkers(candidates, workers)).toEqual(inThread);
  });

  it('a store rebuilt from enough sessions to use the workers lists each with its preview', async () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    const candidates = seedDirs(join(temp.dir, 'sessions'), WORKER_REBUILD_MIN + 10);
    const expected = (await readEntriesInSlices(candidates)).filter((entry) => entry !== null);
    const store = await SessionStore.open({ stateDir: temp.dir });
    try {
      expect(store.startup.rebuilt).toBe(true);
      expect(store.countSessions({ scope: 'all' })).toBe(expected.length);
      for (const entry of expected) expect((await store.getSession(entry.id)).preview).toBe(entry.preview);
    } finally {
      await store.close();
    }
  });
});
