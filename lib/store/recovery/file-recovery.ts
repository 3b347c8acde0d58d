import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ForbiddenPathError, InvalidInputError, PreconditionError } from '../errors.js';
import { atomicWriteFile } from '../../fs/atomic-write.js';
import { processLocks } from '../../fs/keyed-lock.js';
import { realpathOrNull } from '../../fs/real-path.js';
import { runGit } from '../git/git-cli.js';
import { assertSessionId, assertTurnNumber } from '../ids.js';
import { resolveProjectFile } from '../projects/index.js';
import { currentState, loadManifest, saveManifest, type Manifest } from './manifest.js';
import { moveTurnFiles, type TurnDirection, type TurnMove } from './move-turn.js';
import { recoveryRoot } from './paths.js';

export { MAX_SNAPSHOT_BYTES } from './manifest.js';

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

export interface UndoResult {
  turn: number;
  /** `reset`: HEAD moved back past the agent commit (plus any files it did not cover); `files`: files rewritten. */
  method: 'reset' | 'files';
  /** Project-relative paths put back. */
  restored: string[];
  commit: { from: string; to: string | null } | null;
  changes: TurnMove['changes'];
  summary: string;
}

export interface RedoResult {
  turn: number;
  method: 'reset' | 'files';
  reapplied: string[];
  commit: { from: string | null; to: string } | null;
  changes: TurnMove['changes'];
  summary: string;
}

export interface TurnRecoveryInfo {
  turn: number;
  state: 'applied' | 'undone';
  sealed: boolean;
  paths: string[];
  commit: string | null;
}

export interface UndoneCommit {
  sessionId: string;
  turn: number;
  sha: string;
  /** Unix seconds (the manifest's), null when not recorded */
  undoneAt: number | null;
}

export class FileRecovery {
  readonly root: string;

  constructor(stateDir: string) {
    this.root = recoveryRoot(join(stateDir, 'sessions'));
  }

  turnDir(sessionId: string, turn: number): string {
    return join(this.root, assertSessionId(sessionId), String(assertTurnNumber(turn)));
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
      const manifest = (await loadManifest(dir)) ?? this.fresh(sessionId, turn, projectReal);
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
      await saveManifest(dir, manifest);
      return { path: file.rel, recorded: true };
    });
  }

  /**
   * Turn end: note what each snapshotted file became and the turn's agent commit (if any), so
   * that undo can tell later changes apart. Returns false when there is nothing to record.
   */
  async sealTurn(sessionId: string, turn: number, projectPath: string, options: { commitSha?: string | null; parent?: string | null } = {}): Promise<boolean> {
    const dir = this.turnDir(sessionId, turn);
    const projectReal = await this.projectReal(projectPath);
    return processLocks.run(`recovery:${dir}`, async () => {
      const existing = await loadManifest(dir);
      if (!existing && !options.commitSha) return false;
      const manifest = existing ?? this.fresh(sessionId, turn, projectReal);
      if (manifest.state === 'undone') throw new PreconditionError(`turn ${turn} is undone; redo it before sealing again`);
      for (const entry of manifest.entries) {
        let file;
        try {
          file = await resolveProjectFile(projectReal, entry.path);
        } catch (error) {
          // Swapped for a link out of the project since the snapshot: the turn still ends (its
          // messages are kept); with no `after` noted, undo of this path is refused, never done.
          if (error instanceof ForbiddenPathError) {
            entry.after = null;
            continue;
          }
          throw error;
        }
        const now = await currentState(file.abs);
        entry.after = { exists: now.exists, sha256: now.sha256, mode: now.mode, blob: null };
      }
      if (options.commitSha) {
        if (!/^[0-9a-f]{40,64}$/.test(options.commitSha)) throw new InvalidInputError(`invalid commit id: ${options.commitSha}`);
        // The committer knows the parent; asking git costs a process on every agent exchange.
        let parent = options.parent;
        if (parent === undefined) {
          const { stdout } = await runGit(projectReal, ['rev-list', '--parents', '-n', '1', options.commitSha]);
          parent = stdout.toString('utf8').trim().split(' ')[1] ?? null;
        }
        manifest.commit = { sha: options.commitSha, parent };
      }
      manifest.sealed = true;
      await saveManifest(dir, manifest);
      return true;
    });
  }

  /** What is recorded for a turn, or null. */
  async info(sessionId: string, turn: number): Promise<TurnRecoveryInfo | null> {
    const manifest = await loadManifest(this.turnDir(sessionId, turn));
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
    const { paths, ...move } = await this.moveTurn('undo', sessionId, turn, projectPath);
    return { ...move, restored: paths } as UndoResult;
  }

  /** Re-apply what undoTurn removed, refused when anything changed since the undo. */
  async redoTurn(sessionId: string, turn: number, projectPath: string): Promise<RedoResult> {
    const { paths, ...move } = await this.moveTurn('redo', sessionId, turn, projectPath);
    return { ...move, reapplied: paths } as RedoResult;
  }

  /** Undo or redo, with the project and then the turn's record locked. */
  async moveTurn(direction: TurnDirection, sessionId: string, turn: number, projectPath: string): Promise<TurnMove> {
    const dir = this.turnDir(sessionId, turn);
    const projectReal = await this.projectReal(projectPath);
    return processLocks.run(`project:${projectReal}`, () =>
      processLocks.run(`recovery:${dir}`, async () => moveTurnFiles(direction, dir, await loadManifest(dir), turn, projectReal)),
    );
  }

  /**
   * The undone agent commits of these sessions' turns, newest undo first: undo moved the branch
   * back past them, so `git log` no longer lists them, and the project page still must.
   */
  async undoneCommits(sessionIds: Iterable<string>): Promise<UndoneCommit[]> {
    const wanted = new Set(sessionIds);
    const withRecords = await readdir(this.root).catch(() => [] as string[]);
    const out: UndoneCommit[] = [];
    for (const sessionId of withRecords) {
      if (!wanted.has(sessionId)) continue;
      const turns = await readdir(join(this.root, sessionId)).catch(() => [] as string[]);
      for (const name of turns) {
        if (!/^[1-9][0-9]*$/.test(name)) continue;
        const manifest = await loadManifest(join(this.root, sessionId, name)).catch(() => null);
        if (manifest?.state !== 'undone' || !manifest.commit) continue;
        out.push({ sessionId, turn: manifest.turn, sha: manifest.commit.sha, undoneAt: manifest.undone_at });
      }
    }
    return out.sort((a, b) => (b.undoneAt ?? 0) - (a.undoneAt ?? 0));
  }

  /** Remove every record of a session (session delete). */
  async deleteSession(sessionId: string): Promise<void> {
    await rm(join(this.root, assertSessionId(sessionId)), { recursive: true, force: true });
  }


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
}
