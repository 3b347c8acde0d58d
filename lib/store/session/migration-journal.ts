import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { isProjectId, isSessionId } from '../ids.js';

/**
 * The seeds' migration journal (operations.zh.md "附件与恢复"): a session moved in from another
 * state directory is inventoried, copied with its recovery data into `.migration/staging/<sid>/`,
 * verified, published to its place, and only then recorded in locations.json. The journal says
 * how far each one got, so start-up can resume or roll back what a crash cut short.
 */

export const MIGRATION_DIR = '.migration';
const JOURNAL_FILE = 'journal.json';

/** How far a session got; `failed`: the publish did not happen and the project stays unavailable. */
export type MigrationStep = 'inventoried' | 'staged' | 'verified' | 'published' | 'failed';

export interface MigrationEntry {
  sessionId: string;
  projectId: string;
  /** the session repo being moved in */
  from: string;
  /** its per-turn recovery records, when it has any */
  recoveryFrom: string | null;
  step: MigrationStep;
  /** why a publish failed */
  error?: string;
  /** secrets taken out of the staged copy */
  redacted?: number;
}

const STEPS = new Set<MigrationStep>(['inventoried', 'staged', 'verified', 'published', 'failed']);

export function migrationRoot(sessionsDir: string): string {
  return join(sessionsDir, MIGRATION_DIR);
}

/** `.migration/staging/<sid>/`: `repo/` and `file-recovery/` of one session on its way in. */
export function stagingDir(sessionsDir: string, sessionId: string): string {
  return join(migrationRoot(sessionsDir), 'staging', sessionId);
}

function isEntry(value: unknown): value is MigrationEntry {
  if (value === null || typeof value !== 'object') return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry['sessionId'] === 'string' &&
    isSessionId(entry['sessionId']) &&
    typeof entry['projectId'] === 'string' &&
    isProjectId(entry['projectId']) &&
    typeof entry['from'] === 'string' &&
    (entry['recoveryFrom'] === null || typeof entry['recoveryFrom'] === 'string') &&
    STEPS.has(entry['step'] as MigrationStep)
  );
}

/** Every entry, by session id; a missing or unreadable journal is an empty one. */
export function readMigrationJournal(sessionsDir: string): Map<string, MigrationEntry> {
  const entries = new Map<string, MigrationEntry>();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(migrationRoot(sessionsDir), JOURNAL_FILE), 'utf8'));
  } catch {
    return entries;
  }
  const list = raw !== null && typeof raw === 'object' && Array.isArray((raw as { entries?: unknown }).entries) ? (raw as { entries: unknown[] }).entries : [];
  for (const item of list) if (isEntry(item)) entries.set(item.sessionId, item);
  return entries;
}

function writeJournal(sessionsDir: string, entries: Map<string, MigrationEntry>): void {
  // durable: a step is taken only after the journal says so (or, for removal, after it is done)
  atomicWriteFileSync(join(migrationRoot(sessionsDir), JOURNAL_FILE), JSON.stringify({ version: 1, entries: [...entries.values()] }), { durable: true });
}

/** Record (or move on) one session's entry, durably, before the step it names is relied on. */
export function recordMigration(sessionsDir: string, entry: MigrationEntry): void {
  const entries = readMigrationJournal(sessionsDir);
  entries.set(entry.sessionId, entry);
  writeJournal(sessionsDir, entries);
}

/** The session is in place and located: its entry goes. */
export function forgetMigration(sessionsDir: string, sessionId: string): void {
  const entries = readMigrationJournal(sessionsDir);
  if (!entries.delete(sessionId)) return;
  writeJournal(sessionsDir, entries);
}

/**
 * Why new bindings to this project are refused now, or null: a session of it is being moved in,
 * or its publish failed (the project stays unavailable until an import of it succeeds).
 */
export function projectMigrationBlock(sessionsDir: string, projectId: string): string | null {
  for (const entry of readMigrationJournal(sessionsDir).values()) {
    if (entry.projectId !== projectId) continue;
    if (entry.step === 'failed') return `project ${projectId} is unavailable: moving session ${entry.sessionId} into it failed (${entry.error ?? 'publish failed'}); import it again to retry`;
    return `project ${projectId} is unavailable while session ${entry.sessionId} is moved into it`;
  }
  return null;
}
