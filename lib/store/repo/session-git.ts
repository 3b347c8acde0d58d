import * as fs from 'node:fs';
import { join, relative, sep } from 'node:path';
import git from 'isomorphic-git';
import { atomicWriteFile, atomicWriteFileSync, DIR_MODE } from '../../fs/atomic-write.js';
import {
  EMPTY_TREE_OID,
  compareTreeEntries,
  hashObject,
  parseTree,
  serializeCommit,
  serializeTree,
  serializeTreeEntry,
  writeLooseObject,
  type TreeEntry,
} from './git-objects.js';
import { HISTORY_DIR, META_FILE } from './session-files.js';
import type { Redactor } from '../types.js';

/** The committer of every session repo, as OpenProgram writes it (FORMAT.md: a format both stores share, so not renamed). */
export const SESSION_AUTHOR = { name: 'OpenProgram', email: 'openprogram@local' } as const;
const BRANCH_REF = 'refs/heads/main';

export function gitdirOf(repoDir: string): string {
  return join(repoDir, '.git');
}

/**
 * A ref written whole, its temp file at the gitdir's top rather than beside it: under refs/, a
 * crash before the rename left a file git reads as a broken ref (`git fsck`: invalid sha1 pointer).
 */
export async function writeRefFile(gitdir: string, ref: string, sha: string): Promise<void> {
  await atomicWriteFile(join(gitdir, ref), `${sha}\n`, { tempDir: gitdir });
}

/** git init, branch main, an empty "session init" commit, workdir/.gitkeep (FORMAT.md). */
export async function initSessionRepo(repoDir: string, nowSeconds: number): Promise<string> {
  fs.mkdirSync(join(repoDir, 'workdir'), { recursive: true, mode: DIR_MODE });
  fs.mkdirSync(join(repoDir, 'context', 'commits'), { recursive: true, mode: DIR_MODE });
  const keep = join(repoDir, 'workdir', '.gitkeep');
  if (!fs.existsSync(keep)) fs.writeFileSync(keep, '');
  await git.init({ fs, dir: repoDir, defaultBranch: 'main' });
  const gitdir = gitdirOf(repoDir);
  writeLooseObject(gitdir, 'tree', Buffer.alloc(0), false);
  const commit = writeLooseObject(
    gitdir,
    'commit',
    serializeCommit({ tree: EMPTY_TREE_OID, parents: [], author: { ...SESSION_AUTHOR, timestamp: nowSeconds }, message: 'session init' }),
    false,
  );
  atomicWriteFileSync(join(gitdir, BRANCH_REF), `${commit.oid}\n`, { durable: false, tempDir: gitdir });
  return commit.oid;
}

/** What isomorphic-git's init writes into .git, byte for byte. */
const GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = false\n\tbare = false\n\tlogallrefupdates = true\n\tsymlinks = false\n\tignorecase = true\n';
const GIT_FOLDERS = ['hooks', 'info', 'objects/info', 'objects/pack', 'refs/heads', 'refs/tags'];

/**
 * initSessionRepo for a repository whose objects are all written as one pack (an import in its
 * staging directory): the same files, no loose objects; the caller packs these two objects and
 * writes the ref. The "session init" commit's body and the empty tree it points at.
 */
export function stageSessionRepo(repoDir: string, nowSeconds: number): { objects: { type: 'tree' | 'commit'; body: Buffer }[] } {
  fs.mkdirSync(join(repoDir, 'workdir'), { recursive: true, mode: DIR_MODE });
  fs.mkdirSync(join(repoDir, 'context', 'commits'), { recursive: true, mode: DIR_MODE });
  fs.writeFileSync(join(repoDir, 'workdir', '.gitkeep'), '');
  const gitdir = gitdirOf(repoDir);
  for (const folder of GIT_FOLDERS) fs.mkdirSync(join(gitdir, folder), { recursive: true });
  fs.writeFileSync(join(gitdir, 'config'), GIT_CONFIG);
  fs.writeFileSync(join(gitdir, 'HEAD'), `ref: ${BRANCH_REF}\n`);
  const init = serializeCommit({ tree: EMPTY_TREE_OID, parents: [], author: { ...SESSION_AUTHOR, timestamp: nowSeconds }, message: 'session init' });
  return { objects: [{ type: 'tree', body: Buffer.alloc(0) }, { type: 'commit', body: init }] };
}

/** Where the branch ref of a session repo is. */
export function branchRefPath(repoDir: string): string {
  return join(gitdirOf(repoDir), BRANCH_REF);
}

/** What the last commit holds, kept in memory so a commit only adds to it. */
export interface CommitState {
  head: string | null;
  rootTree: string;
  historyNames: Set<string>;
  /** the serialized history tree body, entries sorted */
  historyBody: Buffer;
  lastHistoryName: string;
  /** non-history files: path → what we last hashed, to skip unchanged ones */
  files: Map<string, { oid: string; size: number; mtimeMs: number }>;
  looseBytes: number;
  looseObjects: number;
}

async function resolveHead(repoDir: string): Promise<string | null> {
  try {
    return await git.resolveRef({ fs, dir: repoDir, ref: 'HEAD' });
  } catch {
    return null;
  }
}

async function readRaw(repoDir: string, oid: string): Promise<Buffer> {
  const { object } = await git.readObject({ fs, dir: repoDir, oid, format: 'content' });
  return Buffer.from(object as Uint8Array);
}

export async function readCommitObject(repoDir: string, oid: string): Promise<{ tree: string; parents: string[]; message: string; timestamp: number }> {
  const { commit } = await git.readCommit({ fs, dir: repoDir, oid });
  return { tree: commit.tree, parents: commit.parent, message: commit.message, timestamp: commit.committer.timestamp };
}

/** Entries of a tree, or [] for the empty tree. */
async function readTreeEntries(repoDir: string, treeOid: string): Promise<TreeEntry[]> {
  if (treeOid === EMPTY_TREE_OID) return [];
  return parseTree(await readRaw(repoDir, treeOid));
}

export async function readHistoryBody(repoDir: string, rootTree: string): Promise<Buffer> {
  const entries = await readTreeEntries(repoDir, rootTree);
  const history = entries.find((entry) => entry.name === HISTORY_DIR && entry.mode === '040000');
  return history ? readRaw(repoDir, history.oid) : Buffer.alloc(0);
}

/**
 * Temp files a crash left from ref writes: under refs/heads from builds before the temp file moved
 * out (git fsck reads them as broken refs), at the gitdir's top since. Called before this process
 * writes the repo's ref, so none of them is a write in flight (one writer per data directory).
 */
async function clearStaleRefTemps(gitdir: string): Promise<void> {
  const leftovers = async (dir: string, isTemp: (name: string) => boolean): Promise<string[]> => {
    try {
      return (await fs.promises.readdir(dir)).filter(isTemp).map((name) => join(dir, name));
    } catch {
      return [];
    }
  };
  const stale = [
    ...(await leftovers(join(gitdir, 'refs', 'heads'), (name) => name.endsWith('.tmp'))),
    ...(await leftovers(gitdir, (name) => name.startsWith('.') && name.endsWith('.tmp'))),
  ];
  await Promise.all(stale.map((path) => fs.promises.rm(path, { force: true })));
}

export async function loadCommitState(repoDir: string): Promise<CommitState> {
  await clearStaleRefTemps(gitdirOf(repoDir));
  const head = await resolveHead(repoDir);
  const state: CommitState = {
    head,
    rootTree: EMPTY_TREE_OID,
    historyNames: new Set(),
    historyBody: Buffer.alloc(0),
    lastHistoryName: '',
    files: new Map(),
    looseBytes: 0,
    looseObjects: 0,
  };
  if (!head) return state;
  const commit = await readCommitObject(repoDir, head);
  state.rootTree = commit.tree;
  state.historyBody = await readHistoryBody(repoDir, commit.tree);
  // Other files' oids from the tree; size -1 forces one hash before they count as unchanged.
  const walk = async (treeOid: string, prefix: string): Promise<void> => {
    for (const entry of await readTreeEntries(repoDir, treeOid)) {
      if (prefix === '' && entry.name === HISTORY_DIR) continue;
      const path = prefix + entry.name;
      if (entry.mode === '040000') await walk(entry.oid, `${path}/`);
      else state.files.set(path, { oid: entry.oid, size: -1, mtimeMs: -1 });
    }
  };
  await walk(commit.tree, '');
  for (const entry of parseTree(state.historyBody)) {
    state.historyNames.add(entry.name);
    if (entry.name > state.lastHistoryName) state.lastHistoryName = entry.name;
  }
  return state;
}

/**
 * Whether a turn has anything to commit: new history files, or a change to a file other than
 * meta.json (which changes on every append and head switch and is committed along with them).
 */
export function hasTurnChanges(repoDir: string, state: CommitState, addedHistoryNames: readonly string[]): boolean {
  if (addedHistoryNames.length > 0) return true;
  const files = collectOtherFiles(repoDir);
  // meta.json rides along with real changes; .gitkeep alone is no turn either.
  const ignored = (path: string): boolean => path === META_FILE || path.endsWith('/.gitkeep');
  for (const [path, stat] of files) {
    if (ignored(path)) continue;
    const known = state.files.get(path);
    if (!known) return true;
    if (known.size === stat.size && known.mtimeMs === stat.mtimeMs) continue;
    if (hashObject('blob', fs.readFileSync(join(repoDir, path))) !== known.oid) return true;
  }
  for (const path of state.files.keys()) if (!ignored(path) && !files.has(path)) return true;
  return false;
}

export interface TurnCommitResult {
  sha: string;
  addedHistoryNames: string[];
  writtenBytes: number;
  writtenObjects: number;
}

/**
 * One commit of the working files on top of the state's head, by plumbing only. history/ is
 * extended, not rebuilt: node files never change and their names only grow. Returns null when
 * nothing changed since the last commit. The message passes the redactor (a client may give its
 * own: turn.finalize's commitMessage), required so that no commit can skip it (issue 27 item 7).
 */
export async function commitTurnFiles(
  repoDir: string,
  state: CommitState,
  addedHistoryNames: readonly string[],
  given: string,
  nowSeconds: number,
  redactor: Redactor | null,
): Promise<TurnCommitResult | null> {
  const message = redactor ? String(redactor({ content: given }).message.content) : given;
  const gitdir = gitdirOf(repoDir);
  const written: string[] = [];
  let bytes = 0;
  const write = (type: 'blob' | 'tree' | 'commit', body: Uint8Array): string => {
    const result = writeLooseObject(gitdir, type, body, false);
    if (result.path) {
      written.push(result.path);
      bytes += result.bytes;
    }
    return result.oid;
  };

  // history/: new files only.
  const added = [...addedHistoryNames].sort();
  const addedEntries: TreeEntry[] = added.map((name) => ({
    mode: '100644',
    name,
    oid: write('blob', fs.readFileSync(join(repoDir, HISTORY_DIR, name))),
  }));
  let historyBody: Buffer;
  let lastName = state.lastHistoryName;
  if (addedEntries.length === 0) {
    historyBody = state.historyBody;
  } else if (added[0]! > state.lastHistoryName) {
    historyBody = Buffer.concat([state.historyBody, ...addedEntries.map(serializeTreeEntry)]);
    lastName = added[added.length - 1]!;
  } else {
    // A name sorting before the last one (a 4-digit session past seq 9999): rebuild in order.
    const all = [...parseTree(state.historyBody), ...addedEntries].sort(compareTreeEntries);
    historyBody = Buffer.concat(all.map(serializeTreeEntry));
    lastName = all[all.length - 1]!.name;
  }

  // Everything else in the repo: meta.json, context/, workdir/ (small; hashed only when changed).
  const otherFiles = collectOtherFiles(repoDir);
  const nextFiles = new Map<string, { oid: string; size: number; mtimeMs: number }>();
  for (const [path, stat] of otherFiles) {
    const known = state.files.get(path);
    const oid =
      known && known.size === stat.size && known.mtimeMs === stat.mtimeMs
        ? known.oid
        : write('blob', fs.readFileSync(join(repoDir, path)));
    nextFiles.set(path, { oid, size: stat.size, mtimeMs: stat.mtimeMs });
  }

  const historyTree = historyBody.length > 0 ? write('tree', historyBody) : null;
  const rootTree = writeNestedTree(
    [...nextFiles].map(([path, file]) => ({ path, oid: file.oid })),
    historyTree,
    write,
  );
  if (rootTree === state.rootTree) {
    state.files = nextFiles;
    return null;
  }
  const sha = write(
    'commit',
    serializeCommit({
      tree: rootTree,
      parents: state.head ? [state.head] : [],
      author: { ...SESSION_AUTHOR, timestamp: nowSeconds },
      message,
    }),
  );
  // Objects first, all fsynced together (the filesystem joins concurrent syncs into one
  // journal commit), then the ref: a power loss leaves the old head or the complete new one.
  await Promise.all(written.map(fsyncFile));
  // Synced in the thread pool: a commit must not stop the event loop for two fsyncs (the proxy's forwarding shares it).
  await writeRefFile(gitdir, BRANCH_REF, sha);

  state.head = sha;
  state.rootTree = rootTree;
  state.historyBody = historyBody;
  state.lastHistoryName = lastName;
  for (const name of added) state.historyNames.add(name);
  state.files = nextFiles;
  state.looseBytes += bytes;
  state.looseObjects += written.length;
  return { sha, addedHistoryNames: added, writtenBytes: bytes, writtenObjects: written.length };
}

async function fsyncFile(path: string): Promise<void> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(path, 'r');
  } catch (error) {
    // A background repack's prune-packed removed it: a copy of an object that is in a pack.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const SKIP_TOP = new Set(['.git', HISTORY_DIR]);

function collectOtherFiles(repoDir: string): Map<string, { size: number; mtimeMs: number }> {
  const files = new Map<string, { size: number; mtimeMs: number }>();
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      const rel = relative(repoDir, full).split(sep).join('/');
      if (dir === repoDir && SKIP_TOP.has(entry.name)) continue;
      if (entry.name.endsWith('.tmp')) continue; // an atomic write in flight
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        const stat = fs.statSync(full);
        files.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs });
      }
      // symlinks and other file types are never committed
    }
  };
  walk(repoDir);
  return files;
}

/** Build the root tree from flat paths plus the ready history tree. */
function writeNestedTree(
  files: { path: string; oid: string }[],
  historyTree: string | null,
  write: (type: 'tree', body: Uint8Array) => string,
): string {
  interface Dir {
    files: TreeEntry[];
    dirs: Map<string, Dir>;
  }
  const root: Dir = { files: [], dirs: new Map() };
  for (const file of files) {
    const parts = file.path.split('/');
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) dir.dirs.set(part, (next = { files: [], dirs: new Map() }));
      dir = next;
    }
    dir.files.push({ mode: '100644', name: parts[parts.length - 1]!, oid: file.oid });
  }
  const emit = (dir: Dir, extra: TreeEntry[]): string => {
    const entries = [...dir.files, ...extra];
    for (const [name, child] of dir.dirs) entries.push({ mode: '040000', name, oid: emit(child, []) });
    return write('tree', serializeTree(entries));
  };
  return emit(root, historyTree ? [{ mode: '040000', name: HISTORY_DIR, oid: historyTree }] : []);
}
