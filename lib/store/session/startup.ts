import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { recoveryDir } from '../recovery/paths.js';
import { DEFAULT_PROJECT_ID, isSessionId } from '../ids.js';
import { readMeta, writeMeta } from '../repo/session-files.js';
import { runInBackground, type StoreContext } from './store-context.js';
import { projectIdOfRepoDir, repoDirOf, saveLocations } from './locations.js';
import { removeSessionFiles } from './remove-files.js';
import type { RegistryEntry } from '../types.js';
import { normaliseEntryInPlace } from '../registry/entry.js';
import { readIndexFile, readJournal } from '../registry/index-file.js';
import { entryFromDir, rebuildEntries } from './rebuild.js';
import { listSegments, readLog } from '../registry/registry-log.js';
import { reconcileMigrations, type ReconcileReport } from './migration-steps.js';
import { locateGitDirs } from '../git/repo-safety.js';
import { clearStaleIndexLock } from '../projects/index.js';

const EMPTY_SHELL_AGE_SECONDS = 3600;
/** A rebuilt registry this large is snapshotted after open returns (~50 ms at 10,000); a smaller one before. */
const BACKGROUND_SNAPSHOT_MIN_ENTRIES = 2_000;

export interface StartupReport {
  rebuilt: boolean;
  reconciled: string[];
  resetRunning: string[];
  sweptShells: string[];
  /** sessions moved in from another state directory (migration-steps.ts) */
  migrations: ReconcileReport;
}

/**
 * Start-up of the seeds and DESIGN §4.3: load index.json and replay the registry log over it,
 * or rebuild from every meta.json when index.json or the log is unusable; reconcile what the
 * journal says changed after the last durable record; running → idle; sweep old unarchived
 * empty shells. Archives never expire.
 */
export async function startUp(ctx: StoreContext): Promise<StartupReport> {
  const report: StartupReport = { rebuilt: false, reconciled: [], resetRunning: [], sweptShells: [], migrations: { resumed: [], rolledBack: [], failed: [] } };
  const segments = listSegments(ctx.sessionsDir);
  const journal = readJournal(ctx.sessionsDir);
  ctx.writer.begin(segments, journal.length);
  const index = readIndexFile(ctx.sessionsDir);
  const log = index === null ? null : readLog(ctx.sessionsDir, segments);
  if (index === null || log === null || log.damaged) {
    ctx.registry.load(await rebuildEntries(ctx));
    report.rebuilt = true;
  } else {
    // The log is applied before the one sort of load(): a record costs a map write, not a splice.
    const entries = new Map<string, RegistryEntry>();
    for (const [id, raw] of Object.entries(index)) {
      if (!isSessionId(id) || raw === null || typeof raw !== 'object' || Array.isArray(raw)) continue;
      entries.set(id, normaliseEntryInPlace(id, raw as Record<string, unknown>, projectIdFromLocation(ctx, id)));
    }
    for (const record of log.records) {
      if (record.op === 'delete') entries.delete(record.id);
      else if (isSessionId(record.entry.id)) {
        const id = record.entry.id;
        entries.set(id, normaliseEntryInPlace(id, record.entry, projectIdFromLocation(ctx, id)));
      }
    }
    ctx.registry.load([...entries.values()]);
  }

  // Before the journal's reconcile: a resumed publish journals its session, which that then reads.
  report.migrations = await reconcileMigrations(ctx);
  const migrating = migratingSessions(ctx);
  for (const id of journal) {
    if (!isSessionId(id) || migrating.has(id)) continue;
    // No meta.json: a create or a delete a crash cut short. Either way the directory is no
    // session, and left there it would hold the id's place and its files forever.
    if (!reconcile(ctx, id)) await removeLeftover(ctx, id);
    report.reconciled.push(id);
  }

  for (const entry of [...ctx.registry.values()]) {
    if (entry.status !== 'running') continue;
    const dir = repoDirOf(ctx, entry.id);
    const meta = readMeta(dir);
    if (meta && meta.id === entry.id) writeMeta(dir, { ...meta, status: 'idle' }, ctx.redactor);
    ctx.registry.patch(entry.id, { status: 'idle' });
    report.resetRunning.push(entry.id);
  }

  const cutoff = ctx.now() - EMPTY_SHELL_AGE_SECONDS;
  for (const entry of [...ctx.registry.values()]) {
    // Only a session that never got a user message can be a shell; others are not even stat'ed.
    if (entry.archived || entry.preview || entry.created_at > cutoff || migrating.has(entry.id)) continue;
    const dir = repoDirOf(ctx, entry.id);
    if (!existsSync(join(dir, 'meta.json'))) continue; // unreachable right now: keep
    if (existsSync(join(dir, 'history'))) continue;
    await removeSessionFiles(ctx, entry.id);
    ctx.registry.delete(entry.id);
    report.sweptShells.push(entry.id);
  }

  await clearStaleProjectLocks(ctx);

  // A rebuild is a new snapshot, which also drops an unusable log; anything else is a few records.
  if (!report.rebuilt) await ctx.writer.writeNow();
  else if (ctx.registry.size < BACKGROUND_SNAPSHOT_MIN_ENTRIES) await ctx.writer.compact({ inSlices: true });
  else {
    // The store serves meanwhile: until the snapshot is written, index.json or the log stays
    // unusable, so a crash rebuilds again from the same files (which the records logged since
    // describe too). A failed write is retried by the writer's timer.
    runInBackground(ctx, ctx.writer.compact({ inSlices: true }).catch(() => undefined));
  }
  return report;
}

/**
 * A server killed during an agent commit can leave git's index lock in a project, which blocks
 * the user's own git until the next agent commit there clears it; cleared now instead. A
 * project that cannot be read is left to the commit that needs it.
 */
async function clearStaleProjectLocks(ctx: StoreContext): Promise<void> {
  for (const project of await ctx.projects.list().catch(() => [])) {
    if (project.pathMissing) continue;
    try {
      const dirs = await locateGitDirs(project.path);
      if (dirs) await clearStaleIndexLock(dirs.gitDir);
    } catch {
      // unreadable now: clearStaleIndexLock runs again before any commit in it
    }
  }
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
  return (dir ? projectIdOfRepoDir(dir) : null) ?? DEFAULT_PROJECT_ID;
}

/**
 * Bring one entry in line with its session's own files (or drop it when its meta.json is gone).
 * False when the session has no meta.json.
 */
function reconcile(ctx: StoreContext, id: string): boolean {
  const dir = repoDirOf(ctx, id);
  const entry = entryFromDir(dir, id);
  if (entry) ctx.registry.set(entry);
  else if (!existsSync(join(dir, 'meta.json'))) {
    ctx.registry.delete(id); // gone, or a delete a crash cut short
    return false;
  }
  return true;
}

/** What a create or delete cut short left of a session without meta.json: its directory, location, recovery files. */
async function removeLeftover(ctx: StoreContext, id: string): Promise<void> {
  const dir = repoDirOf(ctx, id);
  if (existsSync(dir)) await rm(dir, { recursive: true, force: true });
  if (ctx.locations.delete(id)) saveLocations(ctx);
  await rm(recoveryDir(ctx.sessionsDir, id), { recursive: true, force: true });
}
