import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { atomicWriteFileSync } from '../fs/atomic-write.js';
import { isInside, realpathOrNull } from '../fs/real-path.js';
import { AuthError } from './errors.js';

/**
 * Extra project roots per user (DESIGN §2: "an admin may add roots; no two users share a root"),
 * besides each user's own workspace folder. The admin's are kept in `data/auth/project-roots.json`
 * (0600), never in a user's own directory, where that user's agent could write; the ones from
 * OPENPROGRAM_ALLOWED_ROOTS are read at start and cannot be removed in the UI.
 */

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

/** The admin's roots on disk plus the environment's, with the rules of checkRoot on every add. */
export class ProjectRootsFile {
  readonly path: string;
  private envRoots: ProjectRoot[] = [];

  constructor(
    authDir: string,
    private readonly dataDir: string,
  ) {
    this.path = join(authDir, 'project-roots.json');
  }

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
    return [...new Set(this.list().filter((root) => root.userId === userId).map((root) => root.path))];
  }

  async add(userId: string, path: string): Promise<ProjectRoot> {
    const roots = this.list();
    if (roots.filter((root) => root.userId === userId).length >= MAX_ROOTS_PER_USER) {
      throw new AuthError('BAD_REQUEST', `a user may have at most ${MAX_ROOTS_PER_USER} roots`);
    }
    const real = await checkRoot(path, userId, { dataDir: this.dataDir, roots });
    const root: ProjectRoot = { userId, path: real, from: 'admin' };
    this.writeAdmin([...this.readAdmin(), root]);
    return root;
  }

  /** Only the admin's: the environment's stay until the variable changes. */
  remove(userId: string, path: string): { removed: boolean } {
    if (this.envRoots.some((root) => root.userId === userId && root.path === path)) {
      throw new AuthError('BAD_REQUEST', 'this root comes from OPENPROGRAM_ALLOWED_ROOTS: change the variable and restart to remove it');
    }
    const admin = this.readAdmin();
    const kept = admin.filter((root) => !(root.userId === userId && root.path === path));
    if (kept.length === admin.length) throw new AuthError('NOT_FOUND', `no such root: ${path}`);
    this.writeAdmin(kept);
    return { removed: true };
  }

  private readAdmin(): ProjectRoot[] {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch {
      return [];
    }
    const list = Array.isArray((raw as { roots?: unknown })?.roots) ? ((raw as { roots: unknown[] }).roots) : [];
    return list
      .filter((item): item is { userId: string; path: string } => {
        const record = item as Record<string, unknown>;
        return typeof record?.['userId'] === 'string' && typeof record['path'] === 'string' && isAbsolute(record['path']);
      })
      .map((item) => ({ userId: item.userId, path: item.path, from: 'admin' as const }));
  }

  private writeAdmin(roots: ProjectRoot[]): void {
    const data = { roots: roots.map(({ userId, path }) => ({ userId, path })) };
    atomicWriteFileSync(this.path, `${JSON.stringify(data, null, 2)}\n`);
  }
}
