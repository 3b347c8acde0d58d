import { join } from 'node:path';
import { readdirSync, readFileSync } from 'node:fs';
import { isSessionId } from '../ids.js';

/** `users/<id>/trash/` (DESIGN §17): one folder per trashed session, outside `sessions/`, so no list, rebuild or index sees it. */
export const TRASH_DIR = 'trash';
/** What the trash keeps: the session's own repository, its per-turn recovery files, and this record. */
export const TRASH_RECORD_FILE = 'trashed.json';
export const TRASHED_REPO_DIR = 'session';
export const TRASHED_RECOVERY_DIR = 'recovery';
/** How long a trashed session is kept before the retention sweep purges it. */
export const TRASH_KEEP_DAYS = 30;
export const DAY_SECONDS = 86_400;

/** One trashed session as the Trash page lists it. Seconds, as on disk. */
export interface TrashRecord {
  id: string;
  title: string;
  projectId: string;
  /** where the repository was: restored to the same place */
  repoDir: string;
  /** the repository was not at sessions/<sid> (locations.json named it) */
  located: boolean;
  trashedAt: number;
  purgeAt: number;
}

export function trashRoot(stateDir: string): string {
  return join(stateDir, TRASH_DIR);
}

export function trashEntryDir(stateDir: string, sessionId: string): string {
  return join(trashRoot(stateDir), sessionId);
}

function parseRecord(value: unknown, id: string): TrashRecord | null {
  if (value === null || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  const { title, projectId, repoDir, located, trashedAt, purgeAt } = record;
  if (record['id'] !== id || typeof title !== 'string' || typeof projectId !== 'string' || typeof repoDir !== 'string') return null;
  if (typeof located !== 'boolean' || typeof trashedAt !== 'number' || !Number.isFinite(trashedAt) || typeof purgeAt !== 'number' || !Number.isFinite(purgeAt)) return null;
  return { id, title, projectId, repoDir, located, trashedAt, purgeAt };
}

/** The record of one trashed session, or null when the folder holds none (a move a crash cut short before its record). */
export function readTrashRecord(stateDir: string, sessionId: string): TrashRecord | null {
  try {
    return parseRecord(JSON.parse(readFileSync(join(trashEntryDir(stateDir, sessionId), TRASH_RECORD_FILE), 'utf8')), sessionId);
  } catch {
    return null;
  }
}

/** Every trashed session with a readable record, newest first. */
export function listTrashRecords(stateDir: string): TrashRecord[] {
  let names: string[];
  try {
    names = readdirSync(trashRoot(stateDir));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .filter(isSessionId)
    .map((id) => readTrashRecord(stateDir, id))
    .filter((record): record is TrashRecord => record !== null)
    .sort((a, b) => b.trashedAt - a.trashedAt || a.id.localeCompare(b.id));
}
