import { lstat, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ForbiddenPathError, InvalidInputError, PreconditionError } from '../errors.js';

/**
 * A user may only bind directories inside their allowed roots (DESIGN §2). Containment is
 * decided on real paths resolved at the moment of use (lib/fs/real-path.ts).
 */
import { isInside, isInsideAny, realpathOrNull, realRoots } from '../../fs/real-path.js';

export { isInside, isInsideAny, realpathOrNull, realRoots };

function assertPathString(path: unknown, what = 'path'): string {
  if (typeof path !== 'string' || path.length === 0) throw new InvalidInputError(`${what} is required`);
  if (path.includes('\0')) throw new InvalidInputError(`${what} contains a NUL character`);
  if (path.length > 4096) throw new InvalidInputError(`${what} is too long`);
  return path;
}

/**
 * Real path of the nearest existing ancestor of `abs` (itself included) with the missing tail
 * appended. The tail has no `..` (abs is normalised) and does not exist, so it cannot be a link.
 */
async function realpathAllowingMissingTail(abs: string): Promise<{ real: string; exists: boolean }> {
  const tail: string[] = [];
  let current = abs;
  for (;;) {
    const real = await realpathOrNull(current);
    if (real) return { real: tail.length ? join(real, ...tail.reverse()) : real, exists: tail.length === 0 };
    // Present but unresolvable: a dangling symlink, whose target could be anywhere.
    if (await lstat(current).then(() => true, () => false)) {
      throw new ForbiddenPathError(`${current} is a symbolic link that points nowhere`);
    }
    const parent = dirname(current);
    if (parent === current) return { real: abs, exists: false };
    tail.push(current.slice(parent.length).replace(/^[\\/]+/, ''));
    current = parent;
  }
}

export interface ResolveInsideRootsOptions {
  /** Base for relative paths; defaults to the first root (the workspace root). */
  base?: string;
  /** Accept a path that does not exist yet (its existing ancestors are still checked). */
  allowMissing?: boolean;
}

/**
 * The real path of `path` when it is equal to or inside one of `roots`; otherwise a
 * ForbiddenPathError that lists the allowed roots. A missing path is a PreconditionError unless
 * `allowMissing`. Relative paths resolve against `base` (the workspace root).
 */
export async function resolveInsideRoots(
  path: string,
  roots: readonly string[],
  options: ResolveInsideRootsOptions = {},
): Promise<string> {
  assertPathString(path);
  if (roots.length === 0) throw new ForbiddenPathError('no allowed roots are configured');
  const base = options.base ?? roots[0] ?? '/';
  const abs = isAbsolute(path) ? resolve(path) : resolve(base, path);
  const { real, exists } = await realpathAllowingMissingTail(abs);
  const allowed = await realRoots(roots);
  if (!allowed.some((root) => isInside(real, root))) {
    throw new ForbiddenPathError(`${path} is outside the allowed roots (allowed: ${roots.join(', ')})`);
  }
  if (!exists && !options.allowMissing) throw new PreconditionError(`folder does not exist: ${abs}`);
  return real;
}

/** resolveInsideRoots, and the result must be an existing directory. */
export async function resolveDirectoryInsideRoots(
  path: string,
  roots: readonly string[],
  options: { base?: string } = {},
): Promise<string> {
  const real = await resolveInsideRoots(path, roots, options);
  const info = await stat(real);
  if (!info.isDirectory()) throw new PreconditionError(`not a directory: ${real}`);
  return real;
}
