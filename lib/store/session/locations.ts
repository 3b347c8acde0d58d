import { readFileSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { isSessionId } from '../ids.js';
import { isInside } from '../../fs/real-path.js';

const LOCATIONS_FILE = 'locations.json';
/** Sessions of a project live at sessions/projects/<pid>/<sid> (FORMAT.md); the name is a reserved session id. */
export const PROJECTS_DIR = 'projects';

/** Where the sessions are and which of them are not at sessions/<sid>. */
export interface LocationsState {
  sessionsDir: string;
  /** repo directory of sessions that are not at sessions/<sid> (locations.json) */
  locations: Map<string, string>;
  /** locations.json entries outside the trusted roots: kept in the file, never used */
  untrustedLocations: Map<string, unknown>;
}

export function defaultRepoDir(ctx: Pick<LocationsState, 'sessionsDir'>, sessionId: string): string {
  return join(ctx.sessionsDir, sessionId);
}

/** A project's session repo: sessions/projects/<pid>/<sid> (recorded in locations.json). */
export function projectRepoDir(ctx: Pick<LocationsState, 'sessionsDir'>, projectId: string, sessionId: string): string {
  return join(ctx.sessionsDir, PROJECTS_DIR, projectId, sessionId);
}

export function repoDirOf(ctx: Pick<LocationsState, 'sessionsDir' | 'locations'>, sessionId: string): string {
  return ctx.locations.get(sessionId) ?? defaultRepoDir(ctx, sessionId);
}


/** The project of a session repo at sessions/projects/<pid>/<sid>, or null for any other place. */
export function projectIdOfRepoDir(dir: string): string | null {
  return /[\\/]sessions[\\/]projects[\\/]([^\\/]+)[\\/][^\\/]+$/.exec(dir)?.[1] ?? null;
}

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
    if (isSessionId(id) && typeof path === 'string' && path !== '' && roots.some((root) => isInside(realOrResolved(path), root))) {
      trusted.set(id, resolve(path));
    } else {
      untrusted.set(id, path); // kept in the file as it was, never followed
    }
  }
  return { trusted, untrusted };
}

export function saveLocations(ctx: LocationsState): void {
  const object: Record<string, unknown> = Object.fromEntries(ctx.untrustedLocations);
  for (const [id, path] of ctx.locations) object[id] = path;
  atomicWriteFileSync(join(ctx.sessionsDir, LOCATIONS_FILE), JSON.stringify(object, null, 2));
}
