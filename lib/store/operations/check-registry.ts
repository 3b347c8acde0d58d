import type { StoreContext } from '../session/store-context.js';
import { rebuildEntries } from '../session/rebuild.js';
import type { RegistryEntry } from '../types.js';

/** Where the in-memory registry and the sessions' own meta.json disagree. */
export interface RegistryCheck {
  sessions: number;
  /** on disk (a valid meta.json) but not in the registry */
  missing: string[];
  /** in the registry but no session directory says so */
  extra: string[];
  /** in both, with different fields */
  different: string[];
}

function canonical(entry: RegistryEntry): string {
  const record = entry as unknown as Record<string, unknown>;
  return JSON.stringify(Object.keys(record).sort().map((key) => [key, record[key]]));
}

/** The registry against a rebuild from every meta.json: a copied store is verified with it before it is trusted. */
export async function checkRegistry(ctx: StoreContext): Promise<RegistryCheck> {
  const fromDisk = new Map((await rebuildEntries(ctx)).map((entry) => [entry.id, entry]));
  const missing: string[] = [];
  const different: string[] = [];
  const extra: string[] = [];
  for (const entry of ctx.registry.values()) {
    const disk = fromDisk.get(entry.id);
    if (!disk) extra.push(entry.id);
    else if (canonical(disk) !== canonical(entry)) different.push(entry.id);
  }
  for (const id of fromDisk.keys()) if (!ctx.registry.has(id)) missing.push(id);
  return { sessions: fromDisk.size, missing, extra, different };
}
