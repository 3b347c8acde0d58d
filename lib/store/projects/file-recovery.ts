import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError, PreconditionError } from '../errors.js';
import { atomicWriteFile } from '../../fs/atomic-write.js';
import { assertSessionId } from '../ids.js';
import { realpathOrNull } from './allowed-roots.js';
import { changedBetween, moveHead, readHead } from './commit-plumbing.js';
import { readWorkingTreeStatus } from './auto-commit.js';
import { runGit } from '../git/git-cli.js';
import { processLocks } from '../../fs/keyed-lock.js';
import { resolveProjectFile } from './project-paths.js';
import { assertRepoSafe, locateGitDirs } from '../git/repo-safety.js';

/**
 * Per-turn undo of the agent's file edits (DESIGN §3 `sessions/.file-recovery/<sid>/<turn>/`).
 *
 * Before the agent first writes a file in a turn, its previous content (or "did not exist") is
 * kept. At the end of the turn `sealTurn` notes what each file became and the agent commit, if
 * any. `undoTurn` then puts things back, but only when that cannot destroy anything newer:
 *
 * - The turn has an agent commit: it must still be HEAD, unpublished, and the tracked tree clean.
 *   HEAD then moves back to the commit's parent (`git reset --keep`), which rewrites only the
 *   files the commit changed and aborts rather than overwrite anything. We move HEAD instead of
 *   adding a revert commit so that undo/redo are two pointer moves and the user's log does not
 *   fill with agent commits and their reverts; the commit stays in the reflog and in this
 *   record, and redo moves HEAD forward to it again.
 * - Files the commit did not cover (not committed, or ignored): each must still be exactly what
 *   the turn left; then its previous content is written back. The content being replaced is
 *   kept so that redo can re-apply it.
 *
 * Any other situation is refused with a PreconditionError that says why. The record is a JSON
 * manifest plus content files, so undo and redo survive a restart.
 */

/** Files larger than this are not snapshotted (undo would refuse rather than lose them). */
export const MAX_SNAPSHOT_BYTES = 100 * 1024 * 1024;

const FileStateSchema = z.object({
  exists: z.boolean(),
  sha256: z.string().nullable(),
  mode: z.number().int().nullable(),
  /** Content file under `blobs/`, when kept. */
  blob: z.string().regex(/^[0-9]+-(before|after)$/).nullable(),
});
type FileState = z.infer<typeof FileStateSchema>;

const ManifestSchema = z.object({
  version: z.literal(1),
  session_id: z.string(),
  turn: z.number().int().positive(),
  project_path: z.string(),
  state: z.enum(['applied', 'undone']),
  sealed: z.boolean(),
  entries: z.array(z.object({ path: z.string(), before: FileStateSchema, after: FileStateSchema.nullable() })),
  commit: z.object({ sha: z.string().regex(/^[0-9a-f]{40,64}$/), parent: z.string().regex(/^[0-9a-f]{40,64}$/).nullable() }).nullable(),
  undone_at: z.number().nullable(),
});
type Manifest = z.infer<typeof ManifestSchema>;

export interface UndoResult {
  turn: number;
  /** `reset`: HEAD moved back past the agent commit (plus any files it did not cover); `files`: files rewritten. */
  method: 'reset' | 'files';
  /** Project-relative paths put back. */
  restored: string[];
  commit: { from: string; to: string | null } | null;
}

export interface RedoResult {
  turn: number;
  method: 'reset' | 'files';
  reapplied: string[];
  commit: { from: string | null; to: string } | null;
}

export interface TurnRecoveryInfo {
  turn: number;
  state: 'applied' | 'undone';
  sealed: boolean;
  paths: string[];
  commit: string | null;
}

function short(sha: string | null): string {
  return sha ? sha.slice(0, 8) : '(none)';
}

function assertTurn(turn: unknown): number {
  if (typeof turn !== 'number' || !Number.isSafeInteger(turn) || turn < 1) throw new InvalidInputError(`invalid turn number: ${String(turn)}`);
  return turn;
}

function sameContent(a: FileState, b: FileState): boolean {
  return a.exists === b.exists && (!a.exists || a.sha256 === b.sha256);
}

/** What a file is right now (directories and other non-files get a hash no file can have). */
async function currentState(abs: string): Promise<FileState & { content: Buffer | null }> {
  const info = await lstat(abs).catch(() => null);
  if (!info) return { exists: false, sha256: null, mode: null, blob: null, content: null };
  if (!info.isFile()) return { exists: true, sha256: `not-a-file:${info.mode}`, mode: null, blob: null, content: null };
  if (info.size > MAX_SNAPSHOT_BYTES) {
    throw new PreconditionError(`${abs} is larger than ${MAX_SNAPSHOT_BYTES / 1024 / 1024} MB; its previous content is not kept for undo`);
  }
  const content = await readFile(abs);
  return { exists: true, sha256: createHash('sha256').update(content).digest('hex'), mode: info.mode & 0o7777, blob: null, content };
}

export class FileRecovery {
  readonly root: string;

  constructor(stateDir: string) {
    this.root = join(stateDir, 'sessions', '.file-recovery');
  }

  turnDir(sessionId: string, turn: number): string {
    return join(this.root, assertSessionId(sessionId), String(assertTurn(turn)));
  }

  /**
   * Keep `relPath`'s current content before the agent edits it in this turn. The first snapshot
   * of a path in a turn wins. Returns the project-relative path the snapshot is filed under
   * (a symlinked file is recorded under its target).
   */
  async snapshotBefore(sessionId: string, turn: number, projectPath: string, relPath: string): Promise<{ path: string; recorded: boolean }> {
    const dir = this.turnDir(sessionId, turn);
    const projectReal = await this.projectReal(projectPath);
    const file = await resolveProjectFile(projectReal, relPath);
    return processLocks.run(`recovery:${dir}`, async () => {
      const manifest = (await this.load(dir)) ?? this.fresh(sessionId, turn, projectReal);
      if (manifest.sealed || manifest.state === 'undone') {
        throw new PreconditionError(`turn ${turn} has already finished; its file snapshots are closed`);
      }
      if (manifest.entries.some((e) => e.path === file.rel)) return { path: file.rel, recorded: false };
      const now = await currentState(file.abs);
      if (now.exists && now.content === null) throw new InvalidInputError(`${file.rel} is not a regular file`);
      const index = manifest.entries.length;
      let blob: string | null = null;
      if (now.content) {
        blob = `${index}-before`;
        await atomicWriteFile(join(dir, 'blobs', blob), now.content);
      }
      manifest.entries.push({ path: file.rel, before: { exists: now.exists, sha256: now.sha256, mode: now.mode, blob }, after: null });
      await this.save(dir, manifest);
      return { path: file.rel, recorded: true };
    });
  }

  /**
   * Turn end: note what each snapshotted file became and the turn's agent commit (if any), so
   * that undo can tell later changes apart. Returns false when there is nothing to record.
   */
  async sealTurn(sessionId: string, turn: number, projectPath: string, options: { commitSha?: string | null } = {}): Promise<boolean> {
    const dir = this.turnDir(sessionId, turn);
    const projectReal = await this.projectReal(projectPath);
    return processLocks.run(`recovery:${dir}`, async () => {
      const existing = await this.load(dir);
      if (!existing && !options.commitSha) return false;
      const manifest = existing ?? this.fresh(sessionId, turn, projectReal);
      if (manifest.state === 'undone') throw new PreconditionError(`turn ${turn} is undone; redo it before sealing again`);
      for (const entry of manifest.entries) {
        const file = await resolveProjectFile(projectReal, entry.path);
        const now = await currentState(file.abs);
        entry.after = { exists: now.exists, sha256: now.sha256, mode: now.mode, blob: null };
      }
      if (options.commitSha) {
        if (!/^[0-9a-f]{40,64}$/.test(options.commitSha)) throw new InvalidInputError(`invalid commit id: ${options.commitSha}`);
        const { stdout } = await runGit(projectReal, ['rev-list', '--parents', '-n', '1', options.commitSha]);
        const [, parent] = stdout.toString('utf8').trim().split(' ');
        manifest.commit = { sha: options.commitSha, parent: parent ?? null };
      }
      manifest.sealed = true;
      await this.save(dir, manifest);
      return true;
    });
  }

  /** What is recorded for a turn, or null. */
  async info(sessionId: string, turn: number): Promise<TurnRecoveryInfo | null> {
    const manifest = await this.load(this.turnDir(sessionId, turn));
    if (!manifest) return null;
    return {
      turn: manifest.turn,
      state: manifest.state,
      sealed: manifest.sealed,
      paths: manifest.entries.map((e) => e.path),
      commit: manifest.commit?.sha ?? null,
    };
  }

  /** Undo the agent's file changes of one turn; see the module comment for when it is refused. */
  async undoTurn(sessionId: string, turn: number, projectPath: string): Promise<UndoResult> {
    const dir = this.turnDir(sessionId, turn);
    const projectReal = await this.projectReal(projectPath);
    return processLocks.run(`project:${projectReal}`, () =>
      processLocks.run(`recovery:${dir}`, async () => {
        const manifest = await this.load(dir);
        if (!manifest) throw new PreconditionError(`turn ${turn} has nothing to undo: the agent changed no files in it`);
        if (manifest.state === 'undone') throw new PreconditionError(`turn ${turn} is already undone`);
        if (!manifest.sealed) throw new PreconditionError(`turn ${turn} has not finished yet`);

        // Check everything first; change nothing until every check passed.
        let commitPaths = new Set<string>();
        if (manifest.commit) {
          await this.assertRepoUsable(projectReal);
          const { head } = await readHead(projectReal);
          if (head !== manifest.commit.sha) {
            throw new PreconditionError(
              `turn ${turn} cannot be undone: a later commit exists (HEAD is ${short(head)}, the agent commit of this turn is ${short(manifest.commit.sha)}). ` +
                'Undo the later turns first, or revert the commit with git.',
            );
          }
          await this.assertUnpublished(projectReal, manifest.commit.sha, turn);
          await this.assertTrackedTreeClean(projectReal, turn);
          commitPaths = new Set((await changedBetween(projectReal, manifest.commit.parent, manifest.commit.sha)).map((c) => c.path));
        }
        const fileEntries = manifest.entries.filter((e) => !commitPaths.has(e.path));
        const plans: Array<{ entry: Manifest['entries'][number]; abs: string; content: Buffer | null }> = [];
        for (const entry of fileEntries) {
          const file = await resolveProjectFile(projectReal, entry.path);
          const now = await currentState(file.abs);
          if (!entry.after || !sameContent(now, entry.after)) {
            throw new PreconditionError(`turn ${turn} cannot be undone: ${entry.path} changed since that turn (by a later turn or by hand), and undoing would lose that change`);
          }
          if (entry.before.exists && !entry.before.blob) throw new PreconditionError(`the previous content of ${entry.path} was not kept`);
          plans.push({ entry, abs: file.abs, content: now.content });
        }

        if (manifest.commit) await this.moveBack(projectReal, manifest.commit.sha, manifest.commit.parent);
        for (const { entry, abs, content } of plans) {
          const index = manifest.entries.indexOf(entry);
          if (content && entry.after) {
            entry.after.blob = `${index}-after`;
            await atomicWriteFile(join(dir, 'blobs', entry.after.blob), content);
          }
          await this.writeState(dir, abs, entry.before);
        }
        manifest.state = 'undone';
        manifest.undone_at = Date.now() / 1000;
        await this.save(dir, manifest);
        return {
          turn,
          method: manifest.commit ? 'reset' : 'files',
          restored: [...new Set([...commitPaths, ...fileEntries.map((e) => e.path)])].sort(),
          commit: manifest.commit ? { from: manifest.commit.sha, to: manifest.commit.parent } : null,
        };
      }),
    );
  }

  /** Re-apply what undoTurn removed, refused when anything changed since the undo. */
  async redoTurn(sessionId: string, turn: number, projectPath: string): Promise<RedoResult> {
    const dir = this.turnDir(sessionId, turn);
    const projectReal = await this.projectReal(projectPath);
    return processLocks.run(`project:${projectReal}`, () =>
      processLocks.run(`recovery:${dir}`, async () => {
        const manifest = await this.load(dir);
        if (!manifest || manifest.state !== 'undone') throw new PreconditionError(`turn ${turn} is not undone, so there is nothing to redo`);

        let commitPaths = new Set<string>();
        if (manifest.commit) {
          await this.assertRepoUsable(projectReal);
          const { head } = await readHead(projectReal);
          if (head !== manifest.commit.parent) {
            throw new PreconditionError(`turn ${turn} cannot be redone: the project moved on since the undo (HEAD is ${short(head)}, expected ${short(manifest.commit.parent)})`);
          }
          const exists = await runGit(projectReal, ['cat-file', '-e', `${manifest.commit.sha}^{commit}`], { okCodes: [0, 1, 128] });
          if (exists.code !== 0) throw new PreconditionError(`turn ${turn} cannot be redone: its agent commit ${short(manifest.commit.sha)} no longer exists in the repository`);
          await this.assertTrackedTreeClean(projectReal, turn);
          commitPaths = new Set((await changedBetween(projectReal, manifest.commit.parent, manifest.commit.sha)).map((c) => c.path));
        }
        const fileEntries = manifest.entries.filter((e) => !commitPaths.has(e.path));
        const plans: Array<{ abs: string; after: FileState }> = [];
        for (const entry of fileEntries) {
          const file = await resolveProjectFile(projectReal, entry.path);
          const now = await currentState(file.abs);
          if (!sameContent(now, entry.before)) {
            throw new PreconditionError(`turn ${turn} cannot be redone: ${entry.path} changed since the undo, and redoing would lose that change`);
          }
          if (!entry.after || (entry.after.exists && !entry.after.blob)) throw new PreconditionError(`the content of ${entry.path} after turn ${turn} was not kept`);
          plans.push({ abs: file.abs, after: entry.after });
        }

        if (manifest.commit) await this.moveForward(projectReal, manifest.commit.parent, manifest.commit.sha);
        for (const { abs, after } of plans) await this.writeState(dir, abs, after);
        manifest.state = 'applied';
        manifest.undone_at = null;
        await this.save(dir, manifest);
        return {
          turn,
          method: manifest.commit ? 'reset' : 'files',
          reapplied: [...new Set([...commitPaths, ...fileEntries.map((e) => e.path)])].sort(),
          commit: manifest.commit ? { from: manifest.commit.parent, to: manifest.commit.sha } : null,
        };
      }),
    );
  }

  /** Remove every record of a session (session delete). */
  async deleteSession(sessionId: string): Promise<void> {
    await rm(join(this.root, assertSessionId(sessionId)), { recursive: true, force: true });
  }

  // ── internals ──────────────────────────────────────────────────────────

  private fresh(sessionId: string, turn: number, projectReal: string): Manifest {
    return {
      version: 1,
      session_id: sessionId,
      turn,
      project_path: projectReal,
      state: 'applied',
      sealed: false,
      entries: [],
      commit: null,
      undone_at: null,
    };
  }

  private async projectReal(projectPath: string): Promise<string> {
    const real = await realpathOrNull(projectPath);
    if (!real || !(await stat(real)).isDirectory()) throw new PreconditionError(`the project folder ${projectPath} is missing`);
    return real;
  }

  private async load(dir: string): Promise<Manifest | null> {
    let text: string;
    try {
      text = await readFile(join(dir, 'manifest.json'), 'utf8');
    } catch {
      return null;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    const parsed = ManifestSchema.safeParse(json);
    if (!parsed.success) throw new PreconditionError(`the recovery record in ${dir} is unreadable`);
    return parsed.data;
  }

  private async save(dir: string, manifest: Manifest): Promise<void> {
    await atomicWriteFile(join(dir, 'manifest.json'), JSON.stringify(manifest));
  }

  private async writeState(dir: string, abs: string, state: FileState): Promise<void> {
    if (!state.exists) {
      await unlink(abs).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
      return;
    }
    if (!state.blob) throw new PreconditionError(`no kept content for ${abs}`);
    const content = await readFile(join(dir, 'blobs', state.blob));
    await mkdir(dirname(abs), { recursive: true });
    await atomicWriteFile(abs, content);
    if (state.mode !== null) await chmod(abs, state.mode);
  }

  private async assertRepoUsable(projectReal: string): Promise<void> {
    if (!(await locateGitDirs(projectReal))) throw new PreconditionError(`${projectReal} is no longer a git repository`);
    await assertRepoSafe(projectReal);
  }

  private async assertUnpublished(projectReal: string, sha: string, turn: number): Promise<void> {
    const { stdout } = await runGit(projectReal, ['for-each-ref', '--contains', sha, '--format=%(refname:short)', 'refs/remotes']);
    const remotes = stdout.toString('utf8').trim().split('\n').filter(Boolean);
    if (remotes.length > 0) {
      throw new PreconditionError(`turn ${turn} cannot be undone: its agent commit ${short(sha)} is already on ${remotes[0]}; revert it with git instead of rewriting published history`);
    }
  }

  /** No staged or unstaged change to a tracked file (untracked files are left alone by reset --keep, which refuses to overwrite one). */
  private async assertTrackedTreeClean(projectReal: string, turn: number): Promise<void> {
    const status = await readWorkingTreeStatus(projectReal, 'no');
    if (status.dirty.size > 0 || status.conflicted) {
      const paths = [...status.dirty].slice(0, 5).join(', ');
      throw new PreconditionError(`turn ${turn} cannot be undone or redone now: the project has uncommitted changes (${paths}); commit or stash them first`);
    }
  }

  private async emptyTree(projectReal: string): Promise<string> {
    const { stdout } = await runGit(projectReal, ['hash-object', '-t', 'tree', '/dev/null']);
    return stdout.toString('utf8').trim();
  }

  private async moveBack(projectReal: string, sha: string, parent: string | null): Promise<void> {
    if (parent) {
      await runGit(projectReal, ['reset', '-q', '--keep', parent]);
      return;
    }
    // The agent commit was the repository's first: back to an unborn branch.
    await runGit(projectReal, ['read-tree', '-m', '-u', sha, await this.emptyTree(projectReal)]);
    await moveHead(projectReal, null, sha, 'openprogram: undo agent turn');
  }

  private async moveForward(projectReal: string, parent: string | null, sha: string): Promise<void> {
    if (parent) {
      await runGit(projectReal, ['reset', '-q', '--keep', sha]);
      return;
    }
    await runGit(projectReal, ['read-tree', '-m', '-u', await this.emptyTree(projectReal), sha]);
    await moveHead(projectReal, sha, null, 'openprogram: redo agent turn');
  }
}
