import { realpath, stat } from 'node:fs/promises';
import { sep } from 'node:path';

/**
 * Containment on real paths, resolved at the moment of use, so a symlink that points elsewhere
 * does not let anything out (DESIGN §2). Used by the project roots and by the git safety checks.
 */

export async function realpathOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

/** A directory now (following links); false for anything missing or unreadable. */
export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** `child` equals `parent` or lies below it. Both must already be real absolute paths. */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(prefix);
}

/** The real paths of the roots that exist right now. */
export async function realRoots(roots: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const root of roots) {
    const real = await realpathOrNull(root);
    if (real) out.push(real);
  }
  return out;
}

export async function isInsideAny(realPath: string, roots: readonly string[]): Promise<boolean> {
  return (await realRoots(roots)).some((root) => isInside(realPath, root));
}
