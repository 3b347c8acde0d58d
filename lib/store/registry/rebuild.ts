import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isProjectId, isSessionId } from '../ids.js';
import { HISTORY_DIR, META_FILE, parseNodeFileName } from '../repo/session-files.js';
import { defaultRepoDir, type StoreContext } from '../store-context.js';
import type { RegistryEntry, SessionMeta } from '../types.js';
import { entryFromMeta } from './entry.js';
import { saveLocations } from './locations.js';
import { previewOf } from './preview.js';

/** Reads in flight at once: enough to keep the thread pool and the disk busy. */
const PARALLEL = 64;

async function readJson(path: string): Promise<Record<string, unknown> | null> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The preview a session's files imply: our meta.json keeps it, OpenProgram's does not (→ newest user node). */
async function previewFromFiles(dir: string, meta: SessionMeta): Promise<string | null> {
  if ('preview' in meta) return typeof meta.preview === 'string' ? meta.preview : null;
  let names: string[];
  try {
    names = await readdir(join(dir, HISTORY_DIR));
  } catch {
    return null;
  }
  const users = names
    .map(parseNodeFileName)
    .filter((file) => file !== null && file.letter === 'u')
    .sort((a, b) => b!.seq - a!.seq);
  for (const file of users) {
    const node = await readJson(join(dir, HISTORY_DIR, file!.name)); // a torn file: try the one before
    if (node?.['role'] === 'user') return previewOf(node['output']);
  }
  return null;
}

/** The entry a session directory implies, or null when it holds no session with this id. */
export async function entryFromDir(dir: string, id: string): Promise<RegistryEntry | null> {
  const meta = (await readJson(join(dir, META_FILE))) as SessionMeta | null;
  if (!meta || (typeof meta.id === 'string' && meta.id !== id)) return null;
  return entryFromMeta(meta, id, await previewFromFiles(dir, meta));
}

async function directories(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * Every valid session: default layout, project layout and locations.json, read in parallel
 * (never more than a few small files at a time on the main thread, so other users' requests
 * keep being served while one user's registry is rebuilt).
 */
export async function rebuildEntries(ctx: StoreContext): Promise<RegistryEntry[]> {
  const candidates: { dir: string; id: string; project: boolean }[] = [];
  const add = (dir: string, id: string, project = false): void => {
    candidates.push({ dir, id, project });
  };
  for (const name of await directories(ctx.sessionsDir)) {
    if (name === 'projects' || name.startsWith('.') || !isSessionId(name)) continue;
    add(defaultRepoDir(ctx, name), name);
  }
  for (const projectId of await directories(join(ctx.sessionsDir, 'projects'))) {
    if (!isProjectId(projectId)) continue;
    for (const name of await directories(join(ctx.sessionsDir, 'projects', projectId))) {
      if (isSessionId(name)) add(join(ctx.sessionsDir, 'projects', projectId, name), name, true);
    }
  }
  for (const [id, dir] of ctx.locations) add(dir, id);

  const found: (RegistryEntry | null)[] = new Array(candidates.length).fill(null);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < candidates.length) {
      const index = next++;
      const { dir, id } = candidates[index]!;
      found[index] = await entryFromDir(dir, id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL, candidates.length) }, worker));

  // The first valid directory of an id wins: default layout, then projects, then locations.json.
  const entries = new Map<string, RegistryEntry>();
  let locationsChanged = false;
  for (let i = 0; i < candidates.length; i++) {
    const entry = found[i];
    if (!entry || entries.has(entry.id)) continue;
    entries.set(entry.id, entry);
    const { dir, id, project } = candidates[i]!;
    if (project && !ctx.locations.has(id)) {
      ctx.locations.set(id, dir);
      locationsChanged = true;
    }
  }
  if (locationsChanged) saveLocations(ctx);
  return [...entries.values()];
}
