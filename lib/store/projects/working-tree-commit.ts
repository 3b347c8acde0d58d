import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processLocks } from '../../fs/keyed-lock.js';
import { ConflictError } from '../errors.js';
import { GitCommandError, runGit } from '../git/git-cli.js';
import type { GitDirs } from '../git/repo-safety.js';
import { msToSeconds } from '../time.js';
import { isInsideAny, realpathOrNull } from './allowed-roots.js';
import { isDirectory } from '../../fs/real-path.js';
import {
  commitIndex,
  gitFailure,
  missingMessage,
  operationInProgress,
  probeRepo,
  skipped,
  type FinishProjectTurnResult,
} from './auto-commit.js';
import { readHeadCommit, stagedChanges, withTempIndex } from './commit-plumbing.js';
import { readWorkingTreeChanges, stageChangedPaths, writtenAfter } from './working-tree-changes.js';
import { commitWorkingTreeByAdd } from './working-tree-add-commit.js';
import { AGENT_EMAIL, agentCommitMessage, agentName } from './commit-message.js';

/**
 * An agent's exchange in a project folder (DESIGN §14): the agent ran its own tools (Write,
 * Bash, apply_patch), so what it wrote is not known path by path. Whatever the working tree
 * holds that the folder's last commit does not (new, changed and deleted files, untracked
 * included, ignored left out) is committed under the agent's identity with the session and
 * turn trailers, as a chat tool turn's commit is. The user's index is never the staging area.
 * No commit, with the reason, when the folder is mid-merge or mid-rebase, on a detached HEAD,
 * or when the user staged changes: the index is then theirs, and a commit would take their work.
 */

export const SHARED_WITH_TRAILER = 'OpenProgram-Shared-With';

export interface WorkingTreeCommitOptions {
  sessionId: string;
  turn: number;
  userMessage: string;
  model: string;
  /** other sessions that may have written in the folder since its last commit */
  sharedWith?: readonly string[];
  autoCommit?: boolean;
  allowedRoots?: readonly string[];
  /** commit time in milliseconds (default now) */
  now?: number;
  /**
   * When the exchange's answer ended (ms since the epoch): files written after it are the work of
   * the tools that answer asked for, which run as this commit is made; they are left for the next
   * exchange's commit. A deletion carries no time and is committed when it is seen.
   */
  writtenBefore?: number;
}

/** The commit message of an agent's exchange: the usual subject and trailers, plus who else may have written. */
export function workingTreeCommitMessage(options: Pick<WorkingTreeCommitOptions, 'sessionId' | 'turn' | 'userMessage' | 'sharedWith'>): string {
  const message = agentCommitMessage(options.sessionId, options.turn, options.userMessage);
  const others = options.sharedWith ?? [];
  if (others.length === 0) return message;
  return `${message}${others.map((id) => `${SHARED_WITH_TRAILER}: ${id}\n`).join('')}`;
}

async function isDetached(dirs: GitDirs): Promise<boolean> {
  const head = await readFile(join(dirs.gitDir, 'HEAD'), 'utf8').catch(() => null);
  return head !== null && !head.startsWith('ref:');
}

export async function commitWorkingTree(folder: string, options: WorkingTreeCommitOptions): Promise<FinishProjectTurnResult> {
  if (options.autoCommit === false) return skipped('disabled', "auto-commit is off for this project; the agent's edits are left uncommitted");
  const real = await realpathOrNull(folder);
  if (!real || !(await isDirectory(real))) return skipped('missing_folder', missingMessage(folder));
  if (options.allowedRoots && !(await isInsideAny(real, options.allowedRoots))) {
    return skipped('unsafe_path', `not committed: the project folder ${folder} resolves to ${real}, outside the allowed roots (${options.allowedRoots.join(', ')})`);
  }
  return processLocks.run(`project:${real}`, async () => {
    try {
      const probe = await probeRepo(real, options.allowedRoots);
      if (probe.state !== 'ok') return skipped(probe.state, probe.message);
      const busy = await operationInProgress(probe.dirs);
      if (busy) return skipped('operation_in_progress', `not committed: ${busy} is in progress in ${real}; the agent's edits are left in the working tree`);
      if (await isDetached(probe.dirs)) return skipped('detached_head', `not committed: HEAD is detached in ${real} (no branch to commit on); the agent's edits are left in the working tree`);
      const identity = { name: agentName(options.model), email: AGENT_EMAIL };
      const request = {
        identity,
        message: workingTreeCommitMessage(options),
        time: msToSeconds(options.now ?? Date.now()),
        reflog: `openprogram: agent exchange, turn ${options.turn}`,
      };
      const head = await readHeadCommit(real, probe.dirs);
      const quick = head !== null ? await commitWorkingTreeByAdd(real, probe.dirs, head, request, options.writtenBefore) : null;
      if (quick) return quick;
      const changes = await readWorkingTreeChanges(real);
      if (changes.staged) {
        return skipped('dirty_index', `not committed: changes are staged in ${real} (git add), so the agent's edits cannot be committed without yours; they are left in the working tree`);
      }
      const late = options.writtenBefore !== undefined ? await writtenAfter(real, changes, options.writtenBefore) : new Set<string>();
      const paths = changes.changed.filter((path) => !late.has(path));
      if (paths.length === 0) return skipped('nothing_to_commit', 'no file changes to commit');
      return await withTempIndex(probe.dirs.gitDir, head !== null, async (temp) => {
        // Not a copy of the real index (none to copy, or the user's git was writing it): start from HEAD.
        if (head !== null && temp.seededFrom === null) await runGit(real, ['read-tree', head], { env: { GIT_INDEX_FILE: temp.file } });
        await stageChangedPaths(real, temp.file, paths);
        // Held-back paths keep their old entries in the private index, which lacks nothing the real one has.
        const { sha, indexUpdated } = await commitIndex(real, probe.dirs, temp, head, request, () => stagedChanges(real, head, temp.file));
        return { sha, skipped: null, paths, ignoredPaths: [], indexUpdated, parent: head };
      });
    } catch (error) {
      // A broken repository, or the user's git holding a ref: a reason for the timeline, never a lost exchange.
      if (error instanceof GitCommandError) return skipped('git_error', gitFailure(real, error));
      if (error instanceof ConflictError) return skipped('git_error', `not committed: ${error.message}`);
      throw error;
    }
  });
}
