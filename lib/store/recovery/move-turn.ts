import { join } from 'node:path';
import { PreconditionError } from '../errors.js';
import { atomicWriteFile } from '../../fs/atomic-write.js';
import { runGit } from '../git/git-cli.js';
import { assertRepoSafe, locateGitDirs } from '../git/repo-safety.js';
import { changedBetween, moveHead, readHead, readWorkingTreeStatus, resolveProjectFile } from '../projects/index.js';
import { nowSeconds } from '../time.js';
import { changeOf, describeMove, type TurnFileChange } from './describe-move.js';
import { currentState, sameContent, saveManifest, writeFileState, type FileState, type Manifest } from './manifest.js';

/** Undo and redo are one move of a turn's files, in one of two directions. */
export type TurnDirection = 'undo' | 'redo';

type Commit = NonNullable<Manifest['commit']>;
type Entry = Manifest['entries'][number];

export interface TurnMove {
  turn: number;
  /** `reset`: HEAD moved past the agent commit (plus any files it did not cover); `files`: files rewritten. */
  method: 'reset' | 'files';
  /** Project-relative paths rewritten. */
  paths: string[];
  commit: { from: string | null; to: string | null } | null;
  /** what the turn had done to each of those paths */
  changes: { path: string; change: TurnFileChange }[];
  /** the move in words: "Removed hello.txt." */
  summary: string;
}

/** git's raw status letter as a change. */
function changeOfStatus(status: string): TurnFileChange {
  if (status.startsWith('A')) return 'added';
  if (status.startsWith('D')) return 'deleted';
  return 'modified';
}

function short(sha: string | null): string {
  return sha ? sha.slice(0, 8) : '(none)';
}

interface Direction {
  /** The record, when it is in the state this direction starts from. */
  recordOf(manifest: Manifest | null, turn: number): Manifest;
  /** HEAD must be here before the move, and is at `to` after it. */
  from(commit: Commit): string | null;
  to(commit: Commit): string | null;
  headMoved(turn: number, head: string | null, commit: Commit): string;
  /** The check only this direction makes on the agent commit. */
  assertCommit(projectReal: string, commit: Commit, turn: number): Promise<void>;
  /** The state the disk must match, and the one written; throws when it cannot be done. */
  plan(entry: Entry, now: FileState, turn: number): FileState;
  /** Undo keeps the content it replaces, so that redo can put it back. */
  keepsReplaced: boolean;
  state: Manifest['state'];
  undoneAt(): number | null;
  gitMessage: string;
}

const DIRECTIONS: Record<TurnDirection, Direction> = {
  undo: {
    recordOf(manifest, turn) {
      if (!manifest) throw new PreconditionError(`turn ${turn} has nothing to undo: the agent changed no files in it`);
      if (manifest.state === 'undone') throw new PreconditionError(`turn ${turn} is already undone`);
      if (!manifest.sealed) throw new PreconditionError(`turn ${turn} has not finished yet`);
      return manifest;
    },
    from: (commit) => commit.sha,
    to: (commit) => commit.parent,
    headMoved: (turn, head, commit) =>
      `turn ${turn} cannot be undone: a later commit exists (HEAD is ${short(head)}, the agent commit of this turn is ${short(commit.sha)}). ` +
      'Undo the later turns first, or revert the commit with git.',
    assertCommit: (projectReal, commit, turn) => assertUnpublished(projectReal, commit.sha, turn),
    plan(entry, now, turn) {
      if (!entry.after || !sameContent(now, entry.after)) {
        throw new PreconditionError(`turn ${turn} cannot be undone: ${entry.path} changed since that turn (by a later turn or by hand), and undoing would lose that change`);
      }
      if (entry.before.exists && !entry.before.blob) throw new PreconditionError(`the previous content of ${entry.path} was not kept`);
      return entry.before;
    },
    keepsReplaced: true,
    state: 'undone',
    undoneAt: nowSeconds,
    gitMessage: 'openprogram: undo agent turn',
  },
  redo: {
    recordOf(manifest, turn) {
      if (!manifest || manifest.state !== 'undone') throw new PreconditionError(`turn ${turn} is not undone, so there is nothing to redo`);
      return manifest;
    },
    from: (commit) => commit.parent,
    to: (commit) => commit.sha,
    headMoved: (turn, head, commit) => `turn ${turn} cannot be redone: the project moved on since the undo (HEAD is ${short(head)}, expected ${short(commit.parent)})`,
    async assertCommit(projectReal, commit, turn) {
      const exists = await runGit(projectReal, ['cat-file', '-e', `${commit.sha}^{commit}`], { okCodes: [0, 1, 128] });
      if (exists.code !== 0) throw new PreconditionError(`turn ${turn} cannot be redone: its agent commit ${short(commit.sha)} no longer exists in the repository`);
    },
    plan(entry, now, turn) {
      if (!sameContent(now, entry.before)) {
        throw new PreconditionError(`turn ${turn} cannot be redone: ${entry.path} changed since the undo, and redoing would lose that change`);
      }
      if (!entry.after || (entry.after.exists && !entry.after.blob)) throw new PreconditionError(`the content of ${entry.path} after turn ${turn} was not kept`);
      return entry.after;
    },
    keepsReplaced: false,
    state: 'applied',
    undoneAt: () => null,
    gitMessage: 'openprogram: redo agent turn',
  },
};

/**
 * Move a turn's files one way, with the project and the record locked by the caller. Checks
 * everything first and changes nothing until every check passed.
 */
export async function moveTurnFiles(direction: TurnDirection, dir: string, record: Manifest | null, turn: number, projectReal: string): Promise<TurnMove> {
  const way = DIRECTIONS[direction];
  const manifest = way.recordOf(record, turn);
  const commit = manifest.commit;
  let commitPaths = new Set<string>();
  const changes = new Map<string, TurnFileChange>();
  if (commit) {
    await assertRepoUsable(projectReal);
    const { head } = await readHead(projectReal);
    if (head !== way.from(commit)) throw new PreconditionError(way.headMoved(turn, head, commit));
    await way.assertCommit(projectReal, commit, turn);
    await assertTrackedTreeClean(projectReal, turn);
    const changed = await changedBetween(projectReal, commit.parent, commit.sha);
    commitPaths = new Set(changed.map((c) => c.path));
    for (const entry of changed) changes.set(entry.path, changeOfStatus(entry.status));
  }
  const fileEntries = manifest.entries.filter((e) => !commitPaths.has(e.path));
  for (const entry of fileEntries) changes.set(entry.path, changeOf(entry.before, entry.after));
  const plans: Array<{ entry: Entry; abs: string; target: FileState; content: Buffer | null }> = [];
  for (const entry of fileEntries) {
    const file = await resolveProjectFile(projectReal, entry.path);
    const now = await currentState(file.abs);
    plans.push({ entry, abs: file.abs, target: way.plan(entry, now, turn), content: now.content });
  }

  if (commit) await moveHeadTo(projectReal, way.from(commit), way.to(commit), way.gitMessage);
  for (const { entry, abs, target, content } of plans) {
    if (way.keepsReplaced && content && entry.after) {
      entry.after.blob = `${manifest.entries.indexOf(entry)}-after`;
      await atomicWriteFile(join(dir, 'blobs', entry.after.blob), content);
    }
    await writeFileState(dir, abs, target);
  }
  manifest.state = way.state;
  manifest.undone_at = way.undoneAt();
  await saveManifest(dir, manifest);
  const paths = [...changes.keys()].sort();
  const listed = paths.map((path) => ({ path, change: changes.get(path)! }));
  return {
    turn,
    method: commit ? 'reset' : 'files',
    paths,
    commit: commit ? { from: way.from(commit), to: way.to(commit) } : null,
    changes: listed,
    summary: describeMove(direction, listed),
  };
}

async function assertRepoUsable(projectReal: string): Promise<void> {
  if (!(await locateGitDirs(projectReal))) throw new PreconditionError(`${projectReal} is no longer a git repository`);
  await assertRepoSafe(projectReal);
}

async function assertUnpublished(projectReal: string, sha: string, turn: number): Promise<void> {
  const { stdout } = await runGit(projectReal, ['for-each-ref', '--contains', sha, '--format=%(refname:short)', 'refs/remotes']);
  const remotes = stdout.toString('utf8').trim().split('\n').filter(Boolean);
  if (remotes.length > 0) {
    throw new PreconditionError(`turn ${turn} cannot be undone: its agent commit ${short(sha)} is already on ${remotes[0]}; revert it with git instead of rewriting published history`);
  }
}

/** No staged or unstaged change to a tracked file (untracked files are left alone by reset --keep, which refuses to overwrite one). */
async function assertTrackedTreeClean(projectReal: string, turn: number): Promise<void> {
  const status = await readWorkingTreeStatus(projectReal, 'no');
  if (status.dirty.size > 0 || status.conflicted) {
    const paths = [...status.dirty].slice(0, 5).join(', ');
    throw new PreconditionError(`turn ${turn} cannot be undone or redone now: the project has uncommitted changes (${paths}); commit or stash them first`);
  }
}

/**
 * `git reset --keep` rewrites only the files the commit changed and aborts rather than overwrite
 * anything. With no parent the agent commit was the repository's first: to or from an unborn branch.
 */
async function moveHeadTo(projectReal: string, from: string | null, to: string | null, message: string): Promise<void> {
  if (from && to) {
    await runGit(projectReal, ['reset', '-q', '--keep', to]);
    return;
  }
  const emptyTree = (await runGit(projectReal, ['hash-object', '-t', 'tree', '/dev/null'])).stdout.toString('utf8').trim();
  await runGit(projectReal, ['read-tree', '-m', '-u', from ?? emptyTree, to ?? emptyTree]);
  await moveHead(projectReal, to, from, message);
}
