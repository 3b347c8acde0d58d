import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { processLocks } from '../../fs/keyed-lock.js';
import { ConflictError } from '../errors.js';
import { GitCommandError, runGit } from '../git/git-cli.js';
import type { GitDirs } from '../git/repo-safety.js';
import { msToSeconds } from '../time.js';
import { isInsideAny, realpathOrNull } from './allowed-roots.js';
import { isDirectory } from '../../fs/real-path.js';
import {
  commitChanges,
  gitFailure,
  missingMessage,
  operationInProgress,
  probeRepo,
  skipped,
  type FinishProjectTurnResult,
} from './auto-commit.js';
import { readHeadCommit, type ChangedEntry } from './commit-plumbing.js';
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

/** Does the user's index hold anything HEAD does not (changes they staged with git add)? */
async function hasStagedChanges(real: string, head: string | null): Promise<boolean> {
  if (head === null) {
    const { stdout } = await runGit(real, ['ls-files', '-z', '--cached']);
    return stdout.length > 0;
  }
  const res = await runGit(real, ['diff-index', '--cached', '--quiet', head], { okCodes: [0, 1] });
  return res.code === 1;
}

/** The changed files whose modification time is after `cutMs`. */
async function writtenAfter(real: string, changes: readonly ChangedEntry[], cutMs: number): Promise<ChangedEntry[]> {
  const late: ChangedEntry[] = [];
  for (const change of changes) {
    if (/^0+$/.test(change.newMode)) continue;
    const info = await lstat(join(real, change.path)).catch(() => null);
    if (info && info.mtimeMs > cutMs) late.push(change);
  }
  return late;
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
      const head = await readHeadCommit(real, probe.dirs);
      if (await hasStagedChanges(real, head)) {
        return skipped('dirty_index', `not committed: changes are staged in ${real} (git add), so the agent's edits cannot be committed without yours; they are left in the working tree`);
      }
      const identity = { name: agentName(options.model), email: AGENT_EMAIL };
      return await commitChanges(real, probe.dirs, null, {
        identity,
        message: workingTreeCommitMessage(options),
        time: msToSeconds(options.now ?? Date.now()),
        reflog: `openprogram: agent exchange, turn ${options.turn}`,
        ...(options.writtenBefore !== undefined ? { keepOut: (changes: readonly ChangedEntry[]) => writtenAfter(real, changes, options.writtenBefore!) } : {}),
      });
    } catch (error) {
      // A broken repository, or the user's git holding a ref: a reason for the timeline, never a lost exchange.
      if (error instanceof GitCommandError) return skipped('git_error', gitFailure(real, error));
      if (error instanceof ConflictError) return skipped('git_error', `not committed: ${error.message}`);
      throw error;
    }
  });
}
