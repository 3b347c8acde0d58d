import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { SessionStore, type SessionStoreOptions } from '../session-store.js';

/** A fresh state directory per test, removed afterwards. */
export function tempDir(prefix = 'em-store-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** For one describe: `dir()` gives a fresh state directory, removed after its test. */
export function tempDirsPerTest(): () => string {
  const cleanups: (() => void)[] = [];
  afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));
  return () => {
    const temp = tempDir();
    cleanups.push(temp.cleanup);
    return temp.dir;
  };
}

export interface TempStore {
  store: SessionStore;
  dir: string;
  cleanup: () => Promise<void>;
}

export async function openTempStore(
  options: Partial<SessionStoreOptions> = {},
): Promise<TempStore> {
  const { dir, cleanup } = tempDir();
  const store = await SessionStore.open({ stateDir: dir, debounceMs: 50, ...options });
  return {
    store,
    dir,
    cleanup: async () => {
      await store.close();
      cleanup();
    },
  };
}

/** A clock tests can move: seconds. */
export function manualClock(start = 1_800_000_000): { now: () => number; advance: (seconds: number) => void } {
  let current = start;
  return { now: () => current, advance: (seconds) => (current += seconds) };
}

/** For one describe: open temporary stores; each is closed and removed after its test. */
export function tempStoresPerTest(): (options?: Partial<SessionStoreOptions>) => Promise<TempStore> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return async (options = {}) => {
    const temp = await openTempStore(options);
    cleanups.push(temp.cleanup);
    return temp;
  };
}
