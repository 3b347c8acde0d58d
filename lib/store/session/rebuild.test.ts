import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Registry } from '../registry/registry.js';
import { tempDir } from '../testing/temp-store.js';
import { entryFromDir, rebuildEntries } from './rebuild.js';
import type { StoreContext } from './store-context.js';
import type { RegistryEntry } from '../types.js';

const node = (seq: number, role: string, output: string) =>
  JSON.stringify({ id: `n${seq}`, created_at: 1, seq, role, name: '', input: null, output, caller: '', predecessor: null, reads: [], metadata: {} });

describe('rebuild from every meta.json', () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  const sessionsDir = join(temp.dir, 'sessions');
  beforeAll(() => {
    for (let i = 0; i < 2_500; i++) {
      const id = `s${i}`;
      const dir = join(sessionsDir, id);
      mkdirSync(join(dir, 'history'), { recursive: true });
      const kind = i % 5;
      // 0: ours, with a preview; 1: OpenProgram's (no preview: the newest user node); 2: its newest user node torn;
      // 3: meta.json of another id (not this session); 4: unparsable meta.json.
      const meta: Record<string, unknown> = { id: kind === 3 ? 'other' : id, title: `t${i}`, created_at: 1_790_000_000 + i, updated_at: 1_790_000_000 + i, head_id: 'n2' };
      if (kind === 0) meta['preview'] = `kept ${i}`;
      writeFileSync(join(dir, 'meta.json'), kind === 4 ? '{"id":' : JSON.stringify(meta));
      writeFileSync(join(dir, 'history', '000000-u-n0.json'), node(0, 'user', `first ${i}`));
      writeFileSync(join(dir, 'history', '000001-a-n1.json'), node(1, 'assistant', 'reply'));
      writeFileSync(join(dir, 'history', '000002-u-n2.json'), kind === 2 ? '{"id":"n2","ro' : node(2, 'user', `newest\nof ${i}`));
    }
  });
  const context = () => ({ sessionsDir, locations: new Map(), untrustedLocations: new Map(), registry: new Registry() }) as unknown as StoreContext;

  /** What the rebuild must find: every directory read on this thread, one at a time. */
  function expectEveryEntry(entries: RegistryEntry[]): void {
    const expected = Array.from({ length: 2_500 }, (_, i) => entryFromDir(join(sessionsDir, `s${i}`), `s${i}`)).filter((entry) => entry !== null);
    expect(entries.length).toBe(1_500);
    expect(new Map(entries.map((entry) => [entry.id, entry]))).toEqual(new Map(expected.map((entry) => [entry.id, entry])));
    const byId = new Map(entries.map((entry) => [entry.id, entry]));
    expect(byId.get('s0')!.preview).toBe('kept 0');
    expect(byId.get('s1')!.preview).toBe('newest of 1');
    expect(byId.get('s2')!.preview).toBe('first 2');
    expect(byId.has('s3')).toBe(false);
    expect(byId.has('s4')).toBe(false);
  }

  it('reads 2,500 sessions with a worker thread exactly as one directory at a time on this thread', async () => {
    const report: { readByWorkers?: number } = {};
    expectEveryEntry(await rebuildEntries(context(), { report }));
    // Both ends of the list were read: the worker's front and this thread's back.
    if (availableParallelism() > 1) expect(report.readByWorkers).toBeGreaterThan(0);
    expect(report.readByWorkers ?? 0).toBeLessThan(2_500);
  }, 60_000);

  it('reads on this thread what a failing worker left unread', async () => {
    const failures = ['process.exit(3)', "throw new Error('broken reader')", 'parentPort.postMessage([])', 'parentPort.postMessage({}); parentPort.postMessage({})'];
    for (const failure of failures) {
      let started = 0;
      const startWorker = () => {
        started++;
        return new Worker(`require('node:worker_threads').parentPort.on('message', () => { const { parentPort } = require('node:worker_threads'); ${failure}; });`, { eval: true });
      };
      const report: { readByWorkers?: number } = {};
      expectEveryEntry(await rebuildEntries(context(), { report, startWorker }));
      expect(started).toBe(Math.min(3, availableParallelism() - 1));
      expect(report.readByWorkers).toBeUndefined();
    }
  }, 60_000);
});
