import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';

/**
 * Where the agent's file tools may go (DESIGN §2): the session's project folder and its extra
 * working directories, never inside `.git/`, never through a link that leads out. Decided twice:
 * on the path as written (lexically, before touching the disk) and on the real path at the moment
 * of use. A refusal is an answer to the model, not a server error.
 */
export class ToolRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolRefusal';
  }
}

export interface ToolRoots {
  /** real path of the project folder: relative paths start here */
  project: string;
  /** real paths of the session's extra working directories */
  workdirs: readonly string[];
}

export interface LexicalPath {
  /** the root (real path) the path lies in */
  root: string;
  /** `/`-separated segments below the root; empty for the root itself */
  segments: string[];
}

function within(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}

function hasGitSegment(segments: readonly string[]): boolean {
  // Case-insensitive: on macOS and Windows `.GIT` is the same directory.
  return segments.some((segment) => segment.toLowerCase() === '.git');
}

/**
 * The lexical rule: relative paths are taken from the project folder; an absolute path must lie
 * in the project folder or a working directory; `..` may not climb out; no `.git` segment.
 */
export function lexicalToolPath(path: unknown, roots: ToolRoots): LexicalPath {
  if (typeof path !== 'string') throw new ToolRefusal('path must be a string');
  if (path.includes('\0')) throw new ToolRefusal('path contains a NUL character');
  if (path.length > 4096) throw new ToolRefusal('path is too long');
  const raw = path.trim() === '' ? '.' : path;
  const all = [roots.project, ...roots.workdirs];
  let root: string | undefined;
  let rest: string;
  if (isAbsolute(raw)) {
    const abs = resolve(raw);
    // The deepest root that holds it: a working directory inside the project is its own root.
    root = all.filter((candidate) => within(abs, candidate)).sort((a, b) => b.length - a.length)[0];
    if (!root) throw new ToolRefusal(`${path} is outside the project folder and the session's working directories`);
    rest = relative(root, abs).split(sep).join('/');
  } else {
    root = roots.project;
    if (raw.includes('\\')) throw new ToolRefusal(`use / as the separator: ${path}`);
    const normal = posix.normalize(raw);
    if (normal === '..' || normal.startsWith('../')) throw new ToolRefusal(`${path} leads out of the project folder`);
    rest = normal;
  }
  const segments = rest.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (hasGitSegment(segments)) throw new ToolRefusal(`${path} is inside a .git directory, which the agent's tools never touch`);
  return { root, segments };
}

export interface ResolvedToolPath extends LexicalPath {
  /** the real absolute path (the target when the path is a link), or where a new file will go */
  abs: string;
  /** that path relative to its root, `/`-separated ('' for the root itself) */
  rel: string;
  exists: boolean;
}

/**
 * The real-path rule, at the moment of use: the deepest existing ancestor is resolved with
 * realpath (an existing final link is followed), and what comes out must still lie in the same
 * root and outside `.git`. A dangling link is refused: its target could be anywhere.
 */
export async function resolveToolPath(path: unknown, roots: ToolRoots): Promise<ResolvedToolPath> {
  const lexical = lexicalToolPath(path, roots);
  const target = join(lexical.root, ...lexical.segments);
  const missing: string[] = [];
  let current = target;
  let real: string | null = null;
  while (real === null) {
    try {
      real = await realpath(current);
    } catch {
      if (await lstat(current).then(() => true, () => false)) throw new ToolRefusal(`${String(path)} is a symbolic link that points nowhere`);
      if (current === lexical.root || !within(current, lexical.root)) throw new ToolRefusal(`${String(path)}: the folder ${lexical.root} is not there`);
      missing.unshift(basename(current));
      current = dirname(current);
    }
  }
  const abs = missing.length > 0 ? join(real, ...missing) : real;
  if (!within(abs, lexical.root)) throw new ToolRefusal(`${String(path)} resolves to ${abs}, outside the project folder and the session's working directories`);
  const rel = relative(lexical.root, abs).split(sep).join('/');
  const segments = rel === '' ? [] : rel.split('/');
  if (hasGitSegment(segments)) throw new ToolRefusal(`${String(path)} resolves inside a .git directory`);
  return { root: lexical.root, segments, abs, rel, exists: missing.length === 0 };
}
