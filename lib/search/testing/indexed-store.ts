import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openTempStore, type TempStore } from '../../store/testing/temp-store.js';
import { SearchIndex } from '../search-index.js';
import { storeSource } from '../store-source.js';

export interface IndexedStore extends TempStore {
  index: SearchIndex;
  /** users/<id>/search.sqlite of this test */
  path: string;
}

/** A temporary store with its index attached, as server/runtime.ts does; both closed after the test. */
export function indexedStoresPerTest(): () => Promise<IndexedStore> {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return async () => {
    const temp = await openTempStore();
    const path = join(temp.dir, 'search.sqlite');
    const index = await SearchIndex.open({ path, source: storeSource(temp.store), onError: () => undefined });
    await index.caughtUp();
    cleanups.push(async () => {
      await index.close();
      await temp.cleanup();
    });
    return { ...temp, index, path };
  };
}
