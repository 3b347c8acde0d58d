import { describe, expect, it } from 'vitest';
import { processLocks } from './keyed-lock.js';

const withLock = <T>(key: string, fn: () => Promise<T>) => processLocks.run(key, fn);

describe('processLocks.run', () => {
  it('runs work on the same key one at a time, in order, even after a failure', async () => {
    const log: string[] = [];
    const step = (name: string, fail = false) => async () => {
      log.push(`${name}:start`);
      await new Promise((r) => setImmediate(r));
      log.push(`${name}:end`);
      if (fail) throw new Error(name);
      return name;
    };
    const results = await Promise.allSettled([withLock('k', step('a')), withLock('k', step('b', true)), withLock('k', step('c'))]);
    expect(log).toEqual(['a:start', 'a:end', 'b:start', 'b:end', 'c:start', 'c:end']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('does not serialise different keys', async () => {
    const log: string[] = [];
    let release!: () => void;
    const blocked = withLock('x', () => new Promise<void>((r) => { release = r; }));
    await withLock('y', async () => { log.push('y ran'); });
    expect(log).toEqual(['y ran']);
    release();
    await blocked;
  });
});
