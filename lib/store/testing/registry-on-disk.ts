import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLog } from '../registry/registry-log.js';
import type { RegistryEntry } from '../types.js';

/** What a reopened store would find: index.json with the registry log replayed over it. */
export function readRegistryOnDisk(sessionsDir: string): Record<string, RegistryEntry> {
  const index = JSON.parse(readFileSync(join(sessionsDir, 'index.json'), 'utf8')) as Record<string, RegistryEntry>;
  for (const record of readLog(sessionsDir).records) {
    if (record.op === 'delete') delete index[record.id];
    else index[record.entry.id] = record.entry;
  }
  return index;
}
