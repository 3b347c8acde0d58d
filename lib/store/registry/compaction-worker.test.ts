import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirsPerTest } from '../testing/temp-store.js';
import { normaliseEntry } from './entry.js';
import { RegistryWriter } from './index-file.js';
import { Registry } from './registry.js';
import { listSegments } from './registry-log.js';
import type { RegistryEntry } from '../types.js';

function entry(id: string, title: string, updatedAt: number): RegistryEntry {
  return normaliseEntry(id, { title, created_at: 1_800_000_000, updated_at: updatedAt, preview: `say "${id}"\n` }, 'default');
}

describe('compaction in a worker', () => {
  const dir = tempDirsPerTest();

  function setup(compactInWorker: boolean): { sessionsDir: string; registry: Registry; writer: RegistryWriter } {
    const sessionsDir = join(dir(), 'sessions');
    mkdirSync(sessionsDir, { recursive: true });
    const registry = new Registry();
    registry.load(Array.from({ length: 3_000 }, (_, i) => entry(`s${i}`, `title ${i}`, 1_800_000_000 + i)));
    const writer = new RegistryWriter(sessionsDir, registry, { compactInWorker, workerMinEntries: 0 });
    writer.begin([], 0);
    return { sessionsDir, registry, writer };
  }

  /** Sets, patches, deletes and a delete-then-recreate (which moves an id to the map's end). */
  async function churn(registry: Registry, writer: RegistryWriter, round: number, logged: boolean): Promise<void> {
    for (let i = 0; i < 200; i++) registry.patch(`s${(i * 7 + round) % 3_000}`, { title: `renamed ${round}.${i}`, pinned: i % 3 === 0 });
    for (let i = 0; i < 20; i++) registry.delete(`s${i * 11 + round}`);
    registry.set(entry(`s${round}`, `recreated ${round}`, 1_900_000_000 + round));
    registry.set(entry(`new-${round}`, `added ${round}`, 1_700_000_000));
    if (logged) await writer.writeNow();
  }

  it('writes index.json byte for byte as the in-thread compaction and Registry.serialize() do', async () => {
    const inWorker = setup(true);
    const inThread = setup(false);
    for (let round = 0; round < 4; round++) {
      for (const { registry, writer } of [inWorker, inThread]) {
        // Round 1 leaves its changes unlogged: the compaction must still carry them.
        await churn(registry, writer, round, round !== 1);
        await writer.compact();
      }
      const text = readFileSync(join(inWorker.sessionsDir, 'index.json'), 'utf8');
      expect(text).toBe(inWorker.registry.serialize());
      expect(text).toBe(readFileSync(join(inThread.sessionsDir, 'index.json'), 'utf8'));
    }
    // The worker did the writing: the sessions directory keeps no temporary file, the log is covered.
    expect(readdirSync(inWorker.sessionsDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    await inWorker.writer.writeNow();
    for (const { writer } of [inWorker, inThread]) await writer.close();
    expect(listSegments(inWorker.sessionsDir)).toEqual([]);
    expect(readFileSync(join(inWorker.sessionsDir, 'index.json'), 'utf8')).toBe(inWorker.registry.serialize());
  });

  it('a worker that dies falls back to the main thread: nothing lost, same text', async () => {
    const { sessionsDir, registry, writer } = setup(true);
    await churn(registry, writer, 0, true);
    await writer.compact();
    // The thread goes away (as if it crashed); the next compaction must still be complete.
    await (writer as unknown as { worker: { terminate(): Promise<void> } }).worker.terminate();
    await churn(registry, writer, 1, true);
    await writer.compact();
    expect(readFileSync(join(sessionsDir, 'index.json'), 'utf8')).toBe(registry.serialize());
    expect(listSegments(sessionsDir).length).toBeLessThanOrEqual(1);
    await writer.close();
    expect(readFileSync(join(sessionsDir, 'index.json'), 'utf8')).toBe(registry.serialize());
  });

  it('an empty registry compacts to {}', async () => {
    const { sessionsDir, registry, writer } = setup(true);
    for (const { id } of registry.snapshot()) registry.delete(id);
    await writer.writeNow();
    await writer.compact();
    expect(readFileSync(join(sessionsDir, 'index.json'), 'utf8')).toBe('{}');
    await writer.close();
  });
});
