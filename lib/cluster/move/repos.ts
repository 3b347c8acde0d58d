import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { runGit } from '../../store/index.js';
import type { RepoHeads } from './ports.js';

/** A user's data as it sits in a data directory: the store and the workspace (project folders). */
export function userRoots(dataDir: string, userId: string): { users: string; workspaces: string } {
  return { users: join(dataDir, 'users', userId), workspaces: join(dataDir, 'workspaces', userId) };
}

/** Git repositories under `root` (a directory holding `.git`), not looking inside them, to a bounded depth. */
export function findRepos(root: string, maxDepth = 4): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((entry) => entry.name === '.git' && entry.isDirectory())) {
      found.push(dir);
      return;
    }
    if (depth >= maxDepth) return;
    for (const entry of entries) if (entry.isDirectory() && !entry.isSymbolicLink()) walk(join(dir, entry.name), depth + 1);
  }
  walk(root, 0);
  return found.sort();
}

/** Every ref of one repository → its commit, as `git for-each-ref` lists them. */
export async function refsOf(repo: string): Promise<Record<string, string>> {
  // A git process per repository was most of a frozen user's wait (1,000 sessions: 1,000
  // processes at the freeze and again at verify); the files say the same for a plain repository.
  return (await refsFromFiles(repo)) ?? refsFromGit(repo);
}

/** `git for-each-ref --format='%(refname) %(objectname)'` itself: the reference refsFromFiles must equal. */
export async function refsFromGit(repo: string): Promise<Record<string, string>> {
  const { stdout } = await runGit(repo, ['for-each-ref', '--format=%(refname) %(objectname)']);
  const refs: Record<string, string> = {};
  for (const line of stdout.toString('utf8').split('\n')) {
    const [name, sha] = line.split(' ');
    if (name && sha) refs[name] = sha;
  }
  return refs;
}

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A ref name git accepts (check-ref-format, less its rarest rules). Anything else under refs/
 * (a `.lock` of an update in flight, a name with a space) git skips or warns about: rather
 * than copy its choices, such a repository is read by git.
 */
function plainRefName(name: string): boolean {
  if (!name.startsWith('refs/') || name.endsWith('/') || name.endsWith('.') || name.includes('..') || name.includes('@{')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\\ufffd]/.test(name)) return false;
  return name.split('/').every((part) => part.length > 0 && !part.startsWith('.') && !part.endsWith('.lock'));
}

/**
 * The refs of a repository read from its files: loose refs under `.git/refs/` over
 * `.git/packed-refs` (git writes the loose one on an update and removes it when packing), a
 * symbolic ref under refs/ listed with the commit of the ref it names, sorted by name as git
 * sorts (bytes). null when anything is unlike what git writes for a plain repository (another
 * ref backend, a shared git directory, an unreadable or unexpected ref file, a symbolic ref
 * naming nothing): the caller asks git then.
 */
export async function refsFromFiles(repo: string): Promise<Record<string, string> | null> {
  return refsFromFilesSync(repo);
}

/**
 * refsFromFiles, read synchronously: some ten small reads per repository, where a promise per
 * read cost more than the read (1,000 sessions: 0.5 s against 0.1 s); headsOf yields between
 * repositories so the instance's other users are not held up for long.
 */
function refsFromFilesSync(repo: string): Record<string, string> | null {
  const gitDir = join(repo, '.git');
  try {
    for (const odd of ['reftable', 'commondir']) {
      if (exists(join(gitDir, odd))) return null;
    }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8');
    if (!/^(?:ref: refs\/\S+|[0-9a-f]{40}|[0-9a-f]{64})\n?$/.test(head)) return null;
    // name → an object id, or `ref: <name>` for a symbolic ref
    const values = new Map<string, string>();
    let packed: string | null = null;
    try {
      packed = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return null;
    }
    if (packed !== null) {
      for (const line of packed.split('\n')) {
        // the header ("# pack-refs with: peeled fully-peeled sorted") and a tag's peeled commit
        if (line === '' || line.startsWith('# ') || /^\^[0-9a-f]{40,64}$/.test(line)) continue;
        const space = line.indexOf(' ');
        const [oid, name] = [line.slice(0, space), line.slice(space + 1)];
        if (space < 0 || !OBJECT_ID.test(oid) || !plainRefName(name)) return null;
        values.set(name, oid);
      }
    }
    if (!readLooseRefs(gitDir, 'refs', values)) return null;
    const refs: Record<string, string> = {};
    const names = [...values.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const name of names) {
      let value = values.get(name)!;
      // git follows a chain of symbolic refs five deep at most
      for (let hops = 0; value.startsWith('ref: ') && hops < 5; hops++) {
        const next = values.get(value.slice('ref: '.length));
        if (next === undefined) return null;
        value = next;
      }
      if (!OBJECT_ID.test(value)) return null;
      refs[name] = value;
    }
    return refs;
  } catch {
    return null;
  }
}

/** The loose refs under `<gitDir>/<dir>` into `values` (over packed ones); false when one is odd. */
function readLooseRefs(gitDir: string, dir: string, values: Map<string, string>): boolean {
  let entries;
  try {
    entries = readdirSync(join(gitDir, dir), { withFileTypes: true });
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && dir === 'refs';
  }
  for (const entry of entries) {
    const name = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!readLooseRefs(gitDir, name, values)) return false;
      continue;
    }
    if (!entry.isFile() || !plainRefName(name)) return false;
    const text = readFileSync(join(gitDir, name), 'utf8').replace(/\n$/, '');
    if (OBJECT_ID.test(text)) values.set(name, text);
    else if (/^ref: refs\/\S+$/.test(text) && plainRefName(text.slice('ref: '.length))) values.set(name, text);
    else return false;
  }
  return true;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** The heads of every repository of a user, keyed by path relative to the data directory (the same on both sides). */
export async function headsOf(dataDir: string, userId: string): Promise<RepoHeads> {
  const roots = userRoots(dataDir, userId);
  const heads: RepoHeads = {};
  const repos = [...findRepos(join(roots.users, 'sessions')), ...findRepos(roots.workspaces)];
  for (let i = 0; i < repos.length; i++) {
    if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    heads[relative(dataDir, repos[i]!)] = refsFromFilesSync(repos[i]!) ?? (await refsFromGit(repos[i]!));
  }
  return heads;
}

/** `git fsck`'s complaints about one repository (none: clean). */
export async function fsckProblems(repo: string): Promise<string[]> {
  const result = await runGit(repo, ['fsck', '--no-progress', '--no-dangling'], { okCodes: [0, 1, 2, 3, 4, 5, 6, 7, 8, 128] });
  const lines = `${result.stdout.toString('utf8')}\n${result.stderr}`.split('\n').map((line) => line.trim()).filter(Boolean);
  if (result.code !== 0 && lines.length === 0) lines.push(`git fsck exited with ${result.code}`);
  return result.code === 0 ? lines.filter((line) => /^(error|fatal|missing|broken)/i.test(line)) : lines;
}
