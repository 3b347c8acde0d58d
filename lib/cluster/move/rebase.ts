import { readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { userRoots } from './repos.js';

/**
 * The store keeps absolute paths in two files (sessions/locations.json, projects/projects.json):
 * on the target they must name the target's data directory, or the sessions of projects would be
 * untrusted there and vanish from the registry. Paths outside the source's user folders stay.
 * Returns the files it changed.
 */
export function rebaseUserPaths(sourceDataDir: string, targetDataDir: string, userId: string): string[] {
  const from = userRoots(sourceDataDir, userId);
  const to = userRoots(targetDataDir, userId);
  const swap = (value: string): string => {
    for (const key of ['users', 'workspaces'] as const) {
      if (value === from[key] || value.startsWith(from[key] + sep)) return to[key] + value.slice(from[key].length);
    }
    return value;
  };
  const rewrite = (value: unknown): unknown => {
    if (typeof value === 'string') return swap(value);
    if (Array.isArray(value)) return value.map(rewrite);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item)]));
    return value;
  };
  const changed: string[] = [];
  for (const file of [join(to.users, 'sessions', 'locations.json'), join(to.users, 'projects', 'projects.json')]) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const next = JSON.stringify(rewrite(JSON.parse(text)), null, 2);
    if (next !== JSON.stringify(JSON.parse(text), null, 2)) {
      atomicWriteFileSync(file, next);
      changed.push(file);
    }
  }
  return changed;
}
