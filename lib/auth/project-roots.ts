import { rmSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { isInside, realpathOrNull } from '../fs/real-path.js';
import { readJsonFile, userIdsWithState, userStatePath, USER_STATE_ID_PATTERN, writeJsonFile } from '../fs/user-state-file.js';
import { AuthError } from './errors.js';

/**
 * Extra project roots per user (DESIGN §2: "an admin may add roots; no two users share a root"),
 * besides each user's own workspace folder. The admin's are kept in the user's state folder,
 * `users/<id>/project-roots.json` (0600), so a move carries them: no root may overlap the data
 * directory, so no agent's tools reach that file, and the user can change it only through the
 * admin. The ones from OPENPROGRAM_ALLOWED_ROOTS are read at start and cannot be removed in the UI.
 */
export const PROJECT_ROOTS_FILE = 'project-roots.json';

export interface ProjectRoot {
  userId: string;
  /** the real, absolute path */
  path: string;
  from: 'admin' | 'env';
}

const MAX_ROOTS_PER_USER = 50;

/**
 * OPENPROGRAM_ALLOWED_ROOTS: `<user>=<absolute path>` entries separated by `;` or newlines, where
 * `<user>` is an email or a user id; a user may appear more than once. Returns the entries and,
 * for each one that cannot be used, why (the server logs them and goes on).
 */
export function parseRootsEnv(value: string | undefined): { entries: { user: string; path: string }[]; errors: string[] } {
  const entries: { user: string; path: string }[] = [];
  const errors: string[] = [];
  for (const raw of (value ?? '').split(/[;\n]/)) {
    const item = raw.trim();
    if (item === '') continue;
    const at = item.indexOf('=');
    const user = at > 0 ? item.slice(0, at).trim() : '';
    const path = at > 0 ? item.slice(at + 1).trim() : '';
    if (user === '' || path === '') errors.push(`"${item}": expected <email or user id>=<absolute path>`);
    else if (!isAbsolute(path)) errors.push(`"${item}": the path must be absolute`);
    else entries.push({ user, path });
  }
  return { entries, errors };
}

/**
 * The real path of a root a user may be given, or why not: an existing directory, outside the
 * data directory and not containing it (it holds every user's state and workspace), and neither
 * inside nor around a root of another user. The same root twice for the same user is a CONFLICT.
 */
export async function checkRoot(path: string, userId: string, context: { dataDir: string; roots: readonly ProjectRoot[] }): Promise<string> {
  if (typeof path !== 'string' || path.trim() === '' || path.includes('\0') || path.length > 4096) {
    throw new AuthError('BAD_REQUEST', 'the folder must be an absolute path');
  }
  if (!isAbsolute(path.trim())) throw new AuthError('BAD_REQUEST', `the folder must be an absolute path, not ${path.trim()}`);
  const real = await realpathOrNull(resolve(path.trim()));
  if (!real) throw new AuthError('BAD_REQUEST', `no such folder: ${path.trim()}`);
  if (!(await stat(real)).isDirectory()) throw new AuthError('BAD_REQUEST', `not a folder: ${real}`);
  const dataDir = (await realpathOrNull(context.dataDir)) ?? resolve(context.dataDir);
  if (isInside(real, dataDir) || isInside(dataDir, real)) {
    throw new AuthError('BAD_REQUEST', `${real} overlaps the data directory (${dataDir}), which holds every user's state`);
  }
  for (const root of context.roots) {
    if (root.userId === userId) {
      if (root.path === real) throw new AuthError('CONFLICT', `${real} is already a root of this user`);
      continue;
    }
    if (isInside(real, root.path) || isInside(root.path, real)) {
      throw new AuthError('CONFLICT', `${real} overlaps ${root.path}, a root of another user: no two users share a root`);
    }
  }
  return real;
}

function readRootsFile(path: string): string[] {
  let raw: unknown;
  try {
    raw = readJsonFile(path);
  } catch {
    return [];
  }
  const list = Array.isArray((raw as { roots?: unknown })?.roots) ? (raw as { roots: unknown[] }).roots : [];
  return list.filter((path): path is string => typeof path === 'string' && isAbsolute(path));
}

/**
 * Start-up: the old instance-wide `<authDir>/project-roots.json` split into each user's folder
 * (a root already there not repeated), then removed. Idempotent; returns the roots moved.
 */
export function migrateProjectRoots(authDir: string, dataDir: string): number {
  const oldPath = join(authDir, PROJECT_ROOTS_FILE);
  let raw: unknown;
  try {
    raw = readJsonFile(oldPath);
  } catch {
    // not JSON: left where it is rather than lost
    return 0;
  }
  if (raw === null) return 0;
  const list = Array.isArray((raw as { roots?: unknown })?.roots) ? (raw as { roots: unknown[] }).roots : [];
  const byUser = new Map<string, string[]>();
  for (const item of list) {
    const record = item as Record<string, unknown>;
    const userId = record?.['userId'];
    const path = record?.['path'];
    if (typeof userId !== 'string' || !USER_STATE_ID_PATTERN.test(userId) || typeof path !== 'string' || !isAbsolute(path)) continue;
    byUser.set(userId, [...(byUser.get(userId) ?? []), path]);
  }
  let moved = 0;
  for (const [userId, paths] of byUser) {
    const file = userStatePath(dataDir, userId, PROJECT_ROOTS_FILE);
    const present = readRootsFile(file);
    const roots = [...new Set([...present, ...paths])];
    moved += roots.length - present.length;
    writeJsonFile(file, { version: 1, roots });
  }
  rmSync(oldPath, { force: true });
  return moved;
}

/** The admin's roots on disk plus the environment's, with the rules of checkRoot on every add. */
export class ProjectRootsFile {
  private envRoots: ProjectRoot[] = [];

  constructor(private readonly dataDir: string) {}

  /**
   * The environment's roots, checked like an admin's (an unusable one is skipped with its reason).
   * `userIdOf` maps an email or id to a user id, or null for no such user.
   */
  async loadEnv(value: string | undefined, userIdOf: (user: string) => string | null): Promise<string[]> {
    const { entries, errors } = parseRootsEnv(value);
    this.envRoots = [];
    for (const entry of entries) {
      const userId = userIdOf(entry.user);
      if (!userId) {
        errors.push(`${entry.user}: no such user`);
        continue;
      }
      try {
        const real = await checkRoot(entry.path, userId, { dataDir: this.dataDir, roots: this.list() });
        this.envRoots.push({ userId, path: real, from: 'env' });
      } catch (error) {
        errors.push(`${entry.user}=${entry.path}: ${(error as Error).message}`);
      }
    }
    return errors;
  }

  /** Every root, the environment's first. */
  list(): ProjectRoot[] {
    return [...this.envRoots, ...this.readAdmin()];
  }

  rootsOf(userId: string): string[] {
    const env = this.envRoots.filter((root) => root.userId === userId).map((root) => root.path);
    return [...new Set([...env, ...readRootsFile(userStatePath(this.dataDir, userId, PROJECT_ROOTS_FILE))])];
  }

  async add(userId: string, path: string): Promise<ProjectRoot> {
    const roots = this.list();
    if (roots.filter((root) => root.userId === userId).length >= MAX_ROOTS_PER_USER) {
      throw new AuthError('BAD_REQUEST', `a user may have at most ${MAX_ROOTS_PER_USER} roots`);
    }
    const real = await checkRoot(path, userId, { dataDir: this.dataDir, roots });
    const root: ProjectRoot = { userId, path: real, from: 'admin' };
    this.writeAdmin(userId, [...this.adminRootsOf(userId), real]);
    return root;
  }

  /** Only the admin's: the environment's stay until the variable changes. */
  remove(userId: string, path: string): { removed: boolean } {
    if (this.envRoots.some((root) => root.userId === userId && root.path === path)) {
      throw new AuthError('BAD_REQUEST', 'this root comes from OPENPROGRAM_ALLOWED_ROOTS: change the variable and restart to remove it');
    }
    const admin = this.adminRootsOf(userId);
    const kept = admin.filter((root) => root !== path);
    if (kept.length === admin.length) throw new AuthError('NOT_FOUND', `no such root: ${path}`);
    this.writeAdmin(userId, kept);
    return { removed: true };
  }

  /** Every user's admin roots on this instance: one small file per user that has any. */
  private readAdmin(): ProjectRoot[] {
    return userIdsWithState(this.dataDir).flatMap((userId) => this.adminRootsOf(userId).map((path) => ({ userId, path, from: 'admin' as const })));
  }

  private adminRootsOf(userId: string): string[] {
    return readRootsFile(userStatePath(this.dataDir, userId, PROJECT_ROOTS_FILE));
  }

  private writeAdmin(userId: string, roots: string[]): void {
    writeJsonFile(userStatePath(this.dataDir, userId, PROJECT_ROOTS_FILE), { version: 1, roots });
  }
}
