import { readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { isSessionId } from '../ids.js';
import { isInside, type StoreContext } from './store-context.js';

export const LOCATIONS_FILE = 'locations.json';

function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * locations.json, trusted only for paths inside the state directory or the allowed roots: an
 * entry pointing anywhere else is ignored (and so never opened or deleted).
 */
export function loadLocations(
  sessionsDir: string,
  trustedRoots: readonly string[],
): { trusted: Map<string, string>; untrusted: Map<string, unknown> } {
  const trusted = new Map<string, string>();
  const untrusted = new Map<string, unknown>();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(sessionsDir, LOCATIONS_FILE), 'utf8'));
  } catch {
    return { trusted, untrusted };
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { trusted, untrusted };
  const roots = trustedRoots.map(realOrResolved);
  for (const [id, path] of Object.entries(raw as Record<string, unknown>)) {
    if (isSessionId(id) && typeof path === 'string' && path !== '' && isInside(realOrResolved(path), roots)) {
      trusted.set(id, resolve(path));
    } else {
      untrusted.set(id, path); // kept in the file as it was, never followed
    }
  }
  return { trusted, untrusted };
}

export function saveLocations(ctx: Pick<StoreContext, 'sessionsDir' | 'locations' | 'untrustedLocations'>): void {
  const object: Record<string, unknown> = Object.fromEntries(ctx.untrustedLocations);
  for (const [id, path] of ctx.locations) object[id] = path;
  atomicWriteFileSync(join(ctx.sessionsDir, LOCATIONS_FILE), JSON.stringify(object, null, 2));
}
