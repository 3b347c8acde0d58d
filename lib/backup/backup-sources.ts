import { readdirSync, type Dirent } from 'node:fs';
import { join, posix } from 'node:path';

/**
 * Which files of a data directory a backup takes, in which order. Left out: the server's lock,
 * temp and lock files of writes in flight, and the derived SQLite files (the search index and the
 * usage rollups are rebuilt from the sessions when missing, DESIGN §10 and §15).
 */
const DERIVED_FILE = /^(?:search|usage)\.sqlite(?:-wal|-shm|-journal)?$/;

export function isLeftOut(relPath: string): boolean {
  const name = posix.basename(relPath);
  return relPath === 'server.lock' || DERIVED_FILE.test(name) || name.endsWith('.lock') || name.endsWith('.tmp');
}

/** A user's registry files (DESIGN §4.3): read at the cut, before any repository. */
export const REGISTRY_FILES = ['index.json', 'locations.json', '.index-journal'];
export const REGISTRY_LOG_PREFIX = '.index-log';

export function isRegistryFile(name: string): boolean {
  return REGISTRY_FILES.includes(name) || name.startsWith(REGISTRY_LOG_PREFIX);
}

export type WalkStep =
  | { kind: 'directory'; rel: string }
  | { kind: 'file'; rel: string }
  /** a repository's objects: copied last of its git directory, read again when a repack moved them */
  | { kind: 'objects'; rel: string };

function entriesOf(abs: string): Dirent[] {
  try {
    return readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []; // removed while we walked: nothing to take
    throw error;
  }
}

/**
 * The files and directories below `rel` (relative to `root`), depth first. A directory holding
 * `.git` is a repository: its git directory comes first with `objects/` last (refs before the
 * objects they name, so every object a copied ref needs is still there when objects are read),
 * then its work tree (files an interrupted write left uncommitted are what a crash would leave).
 * Symbolic links and other special files are never followed or taken.
 */
export function* walk(root: string, rel: string, skip: (rel: string) => boolean = () => false): Generator<WalkStep> {
  yield { kind: 'directory', rel };
  const entries = entriesOf(join(root, rel));
  const gitDir = entries.find((entry) => entry.name === '.git' && entry.isDirectory());
  if (gitDir) yield* walkGitDir(root, posix.join(rel, '.git'));
  for (const entry of entries) {
    if (entry === gitDir) continue;
    const child = posix.join(rel, entry.name);
    if (skip(child) || isLeftOut(child)) continue;
    if (entry.isDirectory()) yield* walk(root, child, skip);
    else if (entry.isFile()) yield { kind: 'file', rel: child };
  }
}

function* walkGitDir(root: string, rel: string): Generator<WalkStep> {
  yield { kind: 'directory', rel };
  let objects = false;
  for (const entry of entriesOf(join(root, rel))) {
    const child = posix.join(rel, entry.name);
    if (entry.name === 'objects' && entry.isDirectory()) objects = true;
    else if (isLeftOut(child)) continue;
    else if (entry.isDirectory()) yield* walk(root, child);
    else if (entry.isFile()) yield { kind: 'file', rel: child };
  }
  if (objects) yield { kind: 'objects', rel: posix.join(rel, 'objects') };
}

/** Every file and directory below a repository's objects/ now, for a pass of the objects copy. */
export function listObjects(root: string, rel: string): WalkStep[] {
  const out: WalkStep[] = [];
  const visit = (dirRel: string): void => {
    out.push({ kind: 'directory', rel: dirRel });
    for (const entry of entriesOf(join(root, dirRel))) {
      const child = posix.join(dirRel, entry.name);
      if (entry.isDirectory()) visit(child);
      else if (entry.isFile() && !isLeftOut(child) && !isGitTemp(entry.name)) out.push({ kind: 'file', rel: child });
    }
  };
  visit(rel);
  return out;
}

/** git's own temp files while it writes an object or a pack (`tmp_obj_…`, `.tmp-<pid>-pack-…`). */
function isGitTemp(name: string): boolean {
  return name.startsWith('tmp_') || name.startsWith('.tmp-');
}
