/**
 * Each user's usage rollups (DESIGN §15), opened with their store (server/runtime.ts) and following
 * its change feed, like the search index. Kept apart from runtime.ts, which only wires them in.
 */
import { join } from 'node:path';
import { storeSource } from '@/lib/search/index';
import type { SessionStore } from '@/lib/store/index';
import { UsageRollups } from '@/lib/usage/index';

interface UsageState {
  rollups: Map<string, Promise<UsageRollups>>;
  opened: Set<UsageRollups>;
}

const KEY = Symbol.for('entity-memory.usage-rollups');
const holder = globalThis as typeof globalThis & { [KEY]?: UsageState };
const state = (): UsageState => (holder[KEY] ??= { rollups: new Map(), opened: new Set() });

/** users/<id>/usage.sqlite, opened for the store that was just opened; a file that must be rebuilt fills in the background. */
export async function openUserUsage(dataDir: string, userId: string, store: SessionStore): Promise<void> {
  const opening = UsageRollups.open({ path: join(dataDir, 'users', userId, 'usage.sqlite'), source: storeSource(store) }).then((rollups) => {
    state().opened.add(rollups);
    return rollups;
  });
  state().rollups.set(userId, opening);
  await opening.catch((error: unknown) => console.error('[usage] the rollups could not be opened:', error));
}

/** The user's rollups once their store is open; undefined before. */
export function usageRollupsOf(userId: string): Promise<UsageRollups> | undefined {
  return state().rollups.get(userId);
}

export async function closeUserUsage(userId: string): Promise<void> {
  const opening = state().rollups.get(userId);
  state().rollups.delete(userId);
  const rollups = opening ? await opening.catch(() => null) : null;
  if (!rollups) return;
  state().opened.delete(rollups);
  await rollups.close();
}

/** At shutdown, synchronously (a signal handler). */
export function closeAllUsageSync(): void {
  for (const rollups of state().opened) {
    try {
      rollups.closeSync();
    } catch (error) {
      console.error('[shutdown] usage rollups close failed:', error);
    }
  }
  state().opened.clear();
}
