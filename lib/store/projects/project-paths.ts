import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, join, posix, relative, sep } from 'node:path';
import { ForbiddenPathError, InvalidInputError } from '../errors.js';
import { isInside } from './allowed-roots.js';

/**
 * Paths the agent wrote, relative to a project folder. They must stay inside the folder and out
 * of any `.git` directory (DESIGN §2: agent file tools never touch `.git/`).
 */

/** `a/./b//c` → `a/b/c`; refuses absolute paths, `..`, backslashes, NUL and `.git` segments. */
export function normalizeProjectPath(path: unknown): string {
  if (typeof path !== 'string' || path.length === 0) throw new InvalidInputError('a project path is required');
  if (path.includes('\0')) throw new InvalidInputError(`path contains a NUL character: ${JSON.stringify(path)}`);
  if (path.includes('\\')) throw new InvalidInputError(`use / as the separator: ${JSON.stringify(path)}`);
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
    throw new ForbiddenPathError(`path must be relative to the project folder: ${JSON.stringify(path)}`);
  }
  const normal = posix.normalize(path).replace(/\/+$/, '');
  if (normal === '.' || normal === '') throw new InvalidInputError(`path names the project folder itself: ${JSON.stringify(path)}`);
  const segments = normal.split('/');
  if (segments.includes('..')) throw new ForbiddenPathError(`path escapes the project folder: ${JSON.stringify(path)}`);
  // Case-insensitive: on macOS and Windows `.GIT` is the same directory.
  if (segments.some((s) => s.toLowerCase() === '.git')) {
    throw new ForbiddenPathError(`path is inside a .git directory: ${JSON.stringify(path)}`);
  }
  return normal;
}

export interface ProjectFile {
  /** Real absolute path of the file (the link target when the file is a symlink). */
  abs: string;
  /** That path relative to the real project folder, with `/` separators. */
  rel: string;
  exists: boolean;
}

/**
 * Resolve `rel` inside the real project folder at the moment of use: parent directories are
 * resolved with realpath and a symlinked file is followed, and the result must still be inside
 * the folder and outside `.git`.
 */
export async function resolveProjectFile(projectReal: string, rel: string): Promise<ProjectFile> {
  const normal = normalizeProjectPath(rel);
  const lexical = join(projectReal, ...normal.split('/'));
  // Resolve the deepest existing ancestor directory; missing intermediate dirs are plain names.
  let parent = dirname(lexical);
  const missing: string[] = [];
  let parentReal: string | null = null;
  while (parentReal === null) {
    try {
      parentReal = await realpath(parent);
    } catch {
      if (parent === projectReal || !isInside(parent, projectReal)) {
        throw new ForbiddenPathError(`cannot resolve ${JSON.stringify(rel)} inside ${projectReal}`);
      }
      missing.unshift(basename(parent));
      parent = dirname(parent);
    }
  }
  let abs = join(parentReal, ...missing, basename(lexical));
  let exists = false;
  if (missing.length === 0) {
    try {
      const info = await lstat(abs);
      exists = true;
      if (info.isSymbolicLink()) {
        try {
          abs = await realpath(abs);
        } catch {
          throw new ForbiddenPathError(`${JSON.stringify(rel)} is a symbolic link that points nowhere`);
        }
      }
    } catch (error) {
      if (error instanceof ForbiddenPathError) throw error;
    }
  }
  if (abs === projectReal || !isInside(abs, projectReal)) {
    throw new ForbiddenPathError(`${JSON.stringify(rel)} resolves outside the project folder ${projectReal}`);
  }
  const relReal = relative(projectReal, abs).split(sep).join('/');
  if (relReal.split('/').some((s) => s.toLowerCase() === '.git')) {
    throw new ForbiddenPathError(`${JSON.stringify(rel)} resolves inside a .git directory`);
  }
  return { abs, rel: relReal, exists };
}

/**
 * The first directory of `rel` (a normalized project path) that is a symbolic link, or null.
 * git stores a symlink as a link and refuses paths "beyond" one, so such a path cannot be
 * committed as the file the agent wrote.
 */
export async function symlinkedAncestor(projectReal: string, rel: string): Promise<string | null> {
  const segments = rel.split('/');
  for (let i = 1; i < segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    const info = await lstat(join(projectReal, prefix)).catch(() => null);
    if (!info) return null; // missing from here on: nothing below can be a link
    if (info.isSymbolicLink()) return prefix;
  }
  return null;
}

/**
 * Where `rel` leads when it is itself a symbolic link out of the project (its real target, or
 * "nowhere" when it dangles), else null. A written file swapped for such a link after the
 * agent's write must not be committed or restored as if it were the agent's file.
 */
export async function linkOutOfProject(projectReal: string, rel: string): Promise<string | null> {
  const abs = join(projectReal, ...rel.split('/'));
  const info = await lstat(abs).catch(() => null);
  if (!info?.isSymbolicLink()) return null;
  const target = await realpath(abs).catch(() => null);
  if (target === null) return 'nowhere';
  return target !== projectReal && isInside(target, projectReal) ? null : target;
}
