import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError, ForbiddenPathError, PreconditionError } from '../errors.js';
import { assertSessionId, assertTurnNumber } from '../ids.js';
import { isInsideAny, realpathOrNull } from './allowed-roots.js';
import { isDirectory } from '../../fs/real-path.js';
import { AGENT_EMAIL, agentCommitMessage, agentName } from './commit-message.js';
import { writeCommitObject } from './commit-object.js';
import {
  installTempIndex,
  moveHead,
  readHeadCommit,
  revertIndexEntries,
  stagedChanges,
  syncIndexEntries,
  withTempIndex,
  writeTree,
  type ChangedEntry,
  type Ident,
  type TempIndex,
} from './commit-plumbing.js';
import { GitCommandError, runGit } from '../git/git-cli.js';
import { readWorkingTreeStatus, type WorkingTreeStatus } from './working-tree-status.js';
import { msToSeconds } from '../time.js';
import { processLocks } from '../../fs/keyed-lock.js';
import { linkOutOfProject, normalizeProjectPath, symlinkedAncestor } from './project-paths.js';
import { assertRepoSafe, locateGitDirs, type GitDirs } from '../git/repo-safety.js';
import { stageInto } from './stage-paths.js';

/**
 * The project side of a turn (DESIGN §4.8). At the start note what is already dirty; at the end
 * commit the agent's work under the agent's identity when that cannot sweep up the user's:
 * known writes are committed path by path if none of them was dirty at the start, unknown
 * writes only when the whole tree was clean at the start. Otherwise nothing is committed and
 * the result says why, for the `project_commit_skipped` event.
 */

export type ProjectRepoState = 'ok' | 'missing_folder' | 'not_a_repo' | 'unsafe_config' | 'git_error';

export interface ProjectTurnSnapshot {
  /** The real path of the project folder when it exists, else the path given. */
  projectPath: string;
  state: ProjectRepoState;
  /** Why the state is not ok. */
  message: string | null;
  head: string | null;
  /** Paths (relative, `/`) that differed from HEAD, were staged, or were untracked at turn start. */
  dirtyPaths: Set<string>;
  clean: boolean;
}

export type SkipReason =
  | 'dirty_tree'
  | 'not_a_repo'
  | 'missing_folder'
  | 'disabled'
  | 'nothing_to_commit'
  | 'unsafe_config'
  /** A written path goes through a symbolic link: git cannot commit it as that file. */
  | 'unsafe_path'
  /** git itself failed (a broken repository, a lock it could not take): the message says what. */
  | 'git_error'
  /** An agent's whole-tree commit (DESIGN §14): the user staged changes, so the index is theirs. */
  | 'dirty_index'
  /** A merge, rebase, cherry-pick or revert stopped half-way in the folder. */
  | 'operation_in_progress'
  /** HEAD is detached: no branch for the commit to go on. */
  | 'detached_head';

export interface FinishProjectTurnOptions {
  /** Defaults to the snapshot's folder; pass the current one if the project was relocated. */
  projectPath?: string;
  /** Paths the agent wrote (relative to the project). Omitted: unknown (an external agent). */
  writtenPaths?: readonly string[];
  sessionId: string;
  turn: number;
  userMessage: string;
  model: string;
  /** The project's auto-commit switch (default on). */
  autoCommit?: boolean;
  /** Commit time in milliseconds (default now). */
  now?: number;
  /** As for beginProjectTurn: refuse git directories outside these roots. */
  allowedRoots?: readonly string[];
}

export interface FinishProjectTurnResult {
  sha: string | null;
  skipped: null | { reason: SkipReason; message: string };
  /** Files the commit changed. */
  paths: string[];
  /** Known writes left out because .gitignore ignores them (never committed). */
  ignoredPaths: string[];
  /** False when the user's git held the index lock throughout; the commit stands, `git status` may look stale. */
  indexUpdated: boolean;
  /** Of a commit: the commit it was made on (null on an unborn branch), so its record needs no git to find it. */
  parent?: string | null;
}

export interface BeginProjectTurnOptions {
  /** When given, a repository whose git directory lies outside these roots is refused. */
  allowedRoots?: readonly string[];
}

/** Turn start: the project's HEAD and what is already dirty there. Never throws for the repo's state. */
export async function beginProjectTurn(projectPath: string, options: BeginProjectTurnOptions = {}): Promise<ProjectTurnSnapshot> {
  const base = { head: null, dirtyPaths: new Set<string>(), clean: false };
  const real = await realpathOrNull(projectPath);
  if (!real || !(await isDirectory(real))) {
    return { ...base, projectPath, state: 'missing_folder', message: missingMessage(projectPath) };
  }
  const probe = await probeRepo(real, options.allowedRoots);
  if (probe.state !== 'ok') return { ...base, projectPath: real, state: probe.state, message: probe.message };
  let status: WorkingTreeStatus;
  try {
    status = await readWorkingTreeStatus(real);
  } catch (error) {
    if (!(error instanceof GitCommandError)) throw error;
    return { ...base, projectPath: real, state: 'git_error', message: gitFailure(real, error) };
  }
  return {
    projectPath: real,
    state: 'ok',
    message: null,
    head: status.head,
    dirtyPaths: status.dirty,
    clean: status.dirty.size === 0 && !status.conflicted,
  };
}

export async function probeRepo(
  real: string,
  allowedRoots?: readonly string[],
): Promise<{ state: 'ok'; dirs: GitDirs } | { state: 'not_a_repo' | 'unsafe_config'; message: string }> {
  const dirs = await locateGitDirs(real);
  if (!dirs) return { state: 'not_a_repo', message: `not committed: ${real} is not a git repository` };
  try {
    await assertRepoSafe(real, allowedRoots ? { allowedRoots } : {});
  } catch (error) {
    if (error instanceof ForbiddenPathError) return { state: 'unsafe_config', message: `not committed: ${error.message}` };
    if (error instanceof PreconditionError) return { state: 'not_a_repo', message: `not committed: ${error.message}` };
    throw error;
  }
  return { state: 'ok', dirs };
}

export function gitFailure(real: string, error: GitCommandError): string {
  const detail = error.stderr.trim().split('\n')[0]?.slice(0, 300) || `exit ${error.exitCode}`;
  return `not committed: git failed in ${real}: ${detail}`;
}

export function missingMessage(path: string): string {
  return `not committed: the project folder ${path} is missing; relocate the project to repair it`;
}

export function skipped(reason: SkipReason, message: string): FinishProjectTurnResult {
  return { sha: null, skipped: { reason, message }, paths: [], ignoredPaths: [], indexUpdated: true };
}

/** A merge, rebase, cherry-pick or revert stopped half-way: HEAD and the index belong to it. */
export async function operationInProgress(dirs: GitDirs): Promise<string | null> {
  const markers: Array<[string, string]> = [
    ['MERGE_HEAD', 'a merge'],
    ['rebase-merge', 'a rebase'],
    ['rebase-apply', 'a rebase or am'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick'],
    ['REVERT_HEAD', 'a revert'],
  ];
  for (const [name, what] of markers) {
    if (await lstat(join(dirs.gitDir, name)).then(() => true, () => false)) return what;
  }
  return null;
}

/** Known paths overlapping the dirty set (a written directory overlaps the dirty files below it). */
function overlapping(written: readonly string[], dirty: ReadonlySet<string>): string[] {
  const hits: string[] = [];
  for (const path of written) {
    if (dirty.has(path)) {
      hits.push(path);
      continue;
    }
    const prefix = `${path}/`;
    for (const d of dirty) {
      if (d.startsWith(prefix) || path.startsWith(`${d.replace(/\/$/, '')}/`)) {
        hits.push(path);
        break;
      }
    }
  }
  return hits;
}

function listForMessage(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).join(', ');
  return paths.length > 5 ? `${shown} and ${paths.length - 5} more` : shown;
}

/**
 * Turn end: commit the agent's work in the project repo, or say why not. The user's index is
 * never used for staging and their other staged or unstaged changes stay exactly as they were.
 */
export async function finishProjectTurn(
  snapshot: ProjectTurnSnapshot,
  options: FinishProjectTurnOptions,
): Promise<FinishProjectTurnResult> {
  assertSessionId(options.sessionId);
  assertTurnNumber(options.turn);
  const written = options.writtenPaths ? [...new Set(options.writtenPaths.map(normalizeProjectPath))] : null;
  if (written && written.length === 0) return skipped('nothing_to_commit', 'the agent changed no files in the project');
  if (options.autoCommit === false) return skipped('disabled', 'auto-commit is off for this project; the agent\'s edits are left uncommitted');

  const given = options.projectPath ?? snapshot.projectPath;
  const real = await realpathOrNull(given);
  if (snapshot.state === 'missing_folder' || !real || !(await isDirectory(real))) {
    return skipped('missing_folder', missingMessage(given));
  }
  if (snapshot.state === 'not_a_repo' || snapshot.state === 'unsafe_config' || snapshot.state === 'git_error') {
    return skipped(snapshot.state, snapshot.message ?? `not committed: ${real} cannot be used`);
  }
  if (options.allowedRoots && !(await isInsideAny(real, options.allowedRoots))) {
    // Swapped for a link during the turn: git would read (and commit) files from elsewhere.
    return skipped('unsafe_path', `not committed: the project folder ${given} now resolves to ${real}, outside the allowed roots (${options.allowedRoots.join(', ')})`);
  }
  for (const path of written ?? []) {
    const link = await symlinkedAncestor(real, path);
    if (link) {
      return skipped('unsafe_path', `not committed: ${path} goes through the symbolic link ${link}, so git cannot commit it as that file; the agent's edits are left in the working tree`);
    }
    const target = await linkOutOfProject(real, path);
    if (target) {
      return skipped('unsafe_path', `not committed: ${path} is now a symbolic link to ${target}, outside the project folder, not the file the agent wrote; nothing was committed`);
    }
  }

  return processLocks.run(`project:${real}`, async () => {
    try {
      return await commitTurn(real, snapshot, written, options);
    } catch (error) {
      // A broken repository, or the user's git holding a ref: a reason for the event, never a crash of the turn.
      if (error instanceof GitCommandError) return skipped('git_error', gitFailure(real, error));
      if (error instanceof ConflictError) return skipped('git_error', `not committed: ${error.message}`);
      throw error;
    }
  });
}

/** The locked part of finishProjectTurn. */
async function commitTurn(
  real: string,
  snapshot: ProjectTurnSnapshot,
  written: readonly string[] | null,
  options: FinishProjectTurnOptions,
): Promise<FinishProjectTurnResult> {
  const probe = await probeRepo(real, options.allowedRoots);
  if (probe.state !== 'ok') return skipped(probe.state, probe.message);
  const busy = await operationInProgress(probe.dirs);
  if (busy) return skipped('dirty_tree', `not committed: ${busy} is in progress in ${real}; the agent's edits are left in the working tree`);

  if (written) {
    const hit = overlapping(written, snapshot.dirtyPaths);
    if (hit.length > 0) {
      return skipped('dirty_tree', `not committed: ${listForMessage(hit)} had uncommitted changes before the turn, so the agent's edits are left in the working tree beside yours`);
    }
  } else if (!snapshot.clean) {
    return skipped('dirty_tree', 'not committed: the project had uncommitted changes before the turn, so the agent\'s edits cannot be told apart from yours; they are left in the working tree');
  }

  const identity: Ident = { name: agentName(options.model), email: AGENT_EMAIL };
  const message = agentCommitMessage(options.sessionId, options.turn, options.userMessage);
  const time = msToSeconds(options.now ?? Date.now());
  return commitChanges(real, probe.dirs, written, { identity, message, time, reflog: `openprogram: agent turn ${options.turn}` });
}

export interface CommitRequest {
  identity: Ident;
  message: string;
  time: number;
  reflog: string;
  /** Of a whole-tree commit: the staged changes to leave for a later commit (they stay in the working tree). */
  keepOut?: (changes: readonly ChangedEntry[]) => Promise<ChangedEntry[]>;
}

/** Is `path` one of the written paths or below a written directory? */
function coveredBy(path: string, written: readonly string[]): boolean {
  return written.some((w) => path === w || path.startsWith(`${w}/`));
}

/**
 * Stage `paths` (or everything when null) in a private index that starts as a copy of the real
 * one (for its stat cache), drop whatever else differs from HEAD there (the user's staged
 * work), commit it on top of HEAD and sync the committed entries into the real index. Callers
 * hold the project lock. Each git process costs several milliseconds to start from a big
 * server, so the common path uses five: add, diff-index, write-tree, commit-tree, update-ref
 * (the private index then becomes the real one; see installTempIndex).
 */
export async function commitChanges(
  real: string,
  dirs: GitDirs,
  paths: readonly string[] | null,
  request: CommitRequest,
): Promise<FinishProjectTurnResult> {
  const head = await readHeadCommit(real, dirs);
  return withTempIndex(dirs.gitDir, head !== null, async (temp) => {
    const indexFile = temp.file;
    const env = { GIT_INDEX_FILE: indexFile };
    // A copy of the real index has its gitlinks, read (and cached) by the safety check.
    let ignoredPaths = await stageInto(real, indexFile, paths, temp.seededFrom ? join(dirs.gitDir, 'index') : undefined);
    let changes = await stagedChanges(real, head, indexFile);
    if (changes.some((c) => c.status === 'U')) {
      // The copied index was mid-merge: start again from exactly HEAD.
      temp.seededFrom = null;
      await runGit(real, head ? ['read-tree', head] : ['read-tree', '--empty'], { env });
      ignoredPaths = await stageInto(real, indexFile, paths);
      changes = await stagedChanges(real, head, indexFile);
    }
    if (paths) {
      // Anything else that differs from HEAD was staged by the user: keep it out of the commit.
      const foreign = changes.filter((c) => !coveredBy(c.path, paths));
      if (foreign.length > 0) {
        await revertIndexEntries(real, indexFile, foreign);
        changes = changes.filter((c) => coveredBy(c.path, paths));
        // The private index now lacks the user's staging: it must not replace the real one.
        temp.seededFrom = null;
      }
    }
    const late = request.keepOut ? await request.keepOut(changes) : [];
    if (late.length > 0) {
      await revertIndexEntries(real, indexFile, late);
      changes = changes.filter((c) => !late.includes(c));
      // As above: the private index lacks changes the real one may have, so it must not replace it.
      temp.seededFrom = null;
    }
    if (changes.length === 0) return { ...skipped('nothing_to_commit', 'no file changes to commit'), ignoredPaths };
    const { sha, indexUpdated } = await commitIndex(real, dirs, temp, head, request, async () => changes);
    return { sha, skipped: null, paths: changes.map((c) => c.path), ignoredPaths, indexUpdated, parent: head };
  });
}

/**
 * Commit what a private index holds on top of `head`, move HEAD there (only if it did not move
 * meanwhile) and make the real index agree: the private one replaces it when it can, else the
 * committed entries (`committed`, asked for only then) are synced into it.
 */
export async function commitIndex(
  real: string,
  dirs: GitDirs,
  temp: TempIndex,
  head: string | null,
  request: CommitRequest,
  committed: () => Promise<readonly ChangedEntry[]>,
): Promise<{ sha: string; indexUpdated: boolean }> {
  const tree = await writeTree(real, temp.file);
  const sha = await writeCommitObject(real, dirs, {
    tree,
    parent: head,
    message: request.message,
    author: request.identity,
    committer: request.identity,
    time: request.time,
  });
  await moveHead(real, sha, head, request.reflog, { dirs, who: request.identity, seconds: request.time });
  const indexUpdated = (await installTempIndex(dirs.gitDir, temp)) || (await syncIndexEntries(real, await committed()));
  return { sha, indexUpdated };
}
