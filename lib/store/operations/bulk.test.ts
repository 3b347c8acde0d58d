import { describe, expect, it } from 'vitest';
import { SessionStore } from '../session-store.js';
import { tempDirsPerTest } from '../testing/temp-store.js';
import { runBulk } from './bulk.js';

describe('runBulk', () => {
  const dir = tempDirsPerTest();

  it('keeps the input order in done and missing, runs a duplicate once, and at most `concurrency` at a time', async () => {
    let running = 0;
    let most = 0;
    const seen: string[] = [];
    const result = await runBulk(['a', 'x', 'b', 'a', 'y', 'c'], async (id) => {
      seen.push(id);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, id === 'a' ? 20 : 1));
      running--;
      return !['x', 'y'].includes(id);
    }, 2);
    expect(result).toEqual({ done: ['a', 'b', 'c'], missing: ['x', 'y'] });
    expect(seen.sort()).toEqual(['a', 'b', 'c', 'x', 'y']);
    expect(most).toBe(2);
  });

  it('a failure of one id rejects the whole call', async () => {
    await expect(runBulk(['a', 'b'], async (id) => {
      if (id === 'b') throw new Error('disk full');
      return true;
    })).rejects.toThrow('disk full');
  });

  it('the registry changes of a bulk share log writes, and every one is durable', async () => {
    const stateDir = dir();
    let store = await SessionStore.open({ stateDir });
    const ids = Array.from({ length: 40 }, (_, i) => `bulk-${i}`);
    for (const id of ids) await store.createSession({ id });
    const before = store.internals.registryWrites;
    const { done, missing } = await runBulk([...ids, 'nobody'], async (id) => {
      if (!store.hasSession(id)) return false;
      await store.setArchived(id, true);
      return true;
    });
    expect(done).toEqual(ids);
    expect(missing).toEqual(['nobody']);
    // One after another this is 40 writes; eight lanes share them.
    expect(store.internals.registryWrites - before).toBeLessThan(ids.length / 2);
    // Reopened without a close: what the log alone holds, as after a crash.
    store = await SessionStore.open({ stateDir });
    try {
      expect(store.countSessions({ scope: 'archived' })).toBe(ids.length);
    } finally {
      await store.close();
    }
  });
});
