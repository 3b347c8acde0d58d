import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProjectId, isSessionId } from '../ids.js';
import { listNodeFiles, readMeta, writeMeta } from '../repo/session-files.js';
import { defaultRepoDir, repoDirOf, type StoreContext } from '../store-context.js';
import { removeSessionFiles } from '../operations/delete-session.js';
import type { RegistryEntry, SessionMeta } from '../types.js';
import { entryFromMeta, normaliseEntry } from './entry.js';
import { readIndexFile, readJournal } from './index-file.js';
import { saveLocations } from './locations.js';
import { previewOf } from './preview.js';

export const EMPTY_SHELL_AGE_SECONDS = 3600;

export interface StartupReport {
  rebuilt: boolean;
  reconciled: string[];
  resetRunning: string[];
  sweptShells: string[];
}

/**
 * Start-up of the seeds and DESIGN §4.3: load index.json or rebuild it from every meta.json;
 * reconcile what the journal says changed after the last registry write; running → idle;
 * sweep old unarchived empty shells. Archives never expire.
 */
export function startUp(ctx: StoreContext): StartupReport {
  const report: StartupReport = { rebuilt: false, reconciled: [], resetRunning: [], sweptShells: [] };
  const index = readIndexFile(ctx.sessionsDir);
  let dirty = false;
  if (index === null) {
    ctx.registry.load(rebuildEntries(ctx));
    report.rebuilt = true;
    dirty = true;
  } else {
    const entries: RegistryEntry[] = [];
    for (const [id, raw] of Object.entries(index)) {
      if (!isSessionId(id) || raw === null || typeof raw !== 'object' || Array.isArray(raw)) continue;
      entries.push(normaliseEntry(id, raw as Record<string, unknown>, projectIdFromLocation(ctx, id)));
    }
    ctx.registry.load(entries);
  }

  for (const id of readJournal(ctx.sessionsDir)) {
    if (!isSessionId(id)) continue;
    reconcile(ctx, id);
    report.reconciled.push(id);
    dirty = true;
  }

  for (const entry of [...ctx.registry.values()]) {
    if (entry.status !== 'running') continue;
    const dir = repoDirOf(ctx, entry.id);
    const meta = readMeta(dir);
    if (meta && meta.id === entry.id) writeMeta(dir, { ...meta, status: 'idle' });
    ctx.registry.patch(entry.id, { status: 'idle' });
    report.resetRunning.push(entry.id);
    dirty = true;
  }

  const cutoff = ctx.now() - EMPTY_SHELL_AGE_SECONDS;
  const migrating = migratingSessions(ctx);
  for (const entry of [...ctx.registry.values()]) {
    // Only a session that never got a user message can be a shell; others are not even stat'ed.
    if (entry.archived || entry.preview || entry.created_at > cutoff || migrating.has(entry.id)) continue;
    const dir = repoDirOf(ctx, entry.id);
    if (!existsSync(join(dir, 'meta.json'))) continue; // unreachable right now: keep
    if (existsSync(join(dir, 'history'))) continue;
    removeSessionFiles(ctx, entry.id);
    ctx.registry.delete(entry.id);
    report.sweptShells.push(entry.id);
    dirty = true;
  }

  if (dirty) ctx.writer.flushSync();
  return report;
}

/** Sessions named by a migration in progress (sessions/.migration/): never swept. */
function migratingSessions(ctx: StoreContext): Set<string> {
  const ids = new Set<string>();
  const staging = join(ctx.sessionsDir, '.migration', 'staging');
  try {
    for (const name of readdirSync(staging)) ids.add(name);
  } catch {
    // no migration
  }
  return ids;
}

function projectIdFromLocation(ctx: StoreContext, id: string): string {
  const dir = ctx.locations.get(id);
  if (!dir) return 'default';
  const match = /[\\/]sessions[\\/]projects[\\/]([^\\/]+)[\\/][^\\/]+$/.exec(dir);
  return match?.[1] ?? 'default';
}

/** The preview a session's files imply: our meta.json keeps it, OpenProgram's does not. */
function previewFromFiles(dir: string, meta: SessionMeta): string | null {
  if ('preview' in meta) return typeof meta.preview === 'string' ? meta.preview : null;
  const users = listNodeFiles(dir)
    .filter((file) => file.letter === 'u')
    .sort((a, b) => b.seq - a.seq);
  for (const file of users) {
    try {
      const node = JSON.parse(readFileSync(join(dir, 'history', file.name), 'utf8')) as { role?: unknown; output?: unknown };
      if (node.role === 'user') return previewOf(node.output);
    } catch {
      // a torn file: try the one before
    }
  }
  return null;
}

function entryFromDir(dir: string, id: string): RegistryEntry | null {
  const meta = readMeta(dir);
  if (!meta || (typeof meta.id === 'string' && meta.id !== id)) return null;
  return entryFromMeta(meta, id, previewFromFiles(dir, meta));
}

/** Bring one entry in line with its session's own files (or drop it when they are gone). */
export function reconcile(ctx: StoreContext, id: string): void {
  const dir = repoDirOf(ctx, id);
  const entry = entryFromDir(dir, id);
  if (entry) ctx.registry.set(entry);
  else if (!existsSync(dir)) ctx.registry.delete(id);
}

/** Every valid session: default layout, project layout and locations.json. */
function rebuildEntries(ctx: StoreContext): RegistryEntry[] {
  const found = new Map<string, RegistryEntry>();
  const add = (dir: string, id: string): void => {
    if (found.has(id)) return;
    const entry = entryFromDir(dir, id);
    if (entry) found.set(id, entry);
  };
  for (const name of safeReaddir(ctx.sessionsDir)) {
    if (name === 'projects' || name.startsWith('.') || !isSessionId(name)) continue;
    add(defaultRepoDir(ctx, name), name);
  }
  let locationsChanged = false;
  for (const projectId of safeReaddir(join(ctx.sessionsDir, 'projects'))) {
    if (!isProjectId(projectId)) continue;
    for (const name of safeReaddir(join(ctx.sessionsDir, 'projects', projectId))) {
      if (!isSessionId(name)) continue;
      const dir = join(ctx.sessionsDir, 'projects', projectId, name);
      add(dir, name);
      if (found.has(name) && !ctx.locations.has(name)) {
        ctx.locations.set(name, dir);
        locationsChanged = true;
      }
    }
  }
  for (const [id, dir] of ctx.locations) add(dir, id);
  if (locationsChanged) saveLocations(ctx);
  return [...found.values()];
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
