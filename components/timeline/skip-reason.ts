/** Why a turn made no project commit, in words (DESIGN §4.8). */
const REASONS: Record<string, string> = {
  dirty_tree: 'No project commit: the project had uncommitted changes before the turn, so the agent\'s edits were left in the working tree.',
  not_a_repo: 'No project commit: the project folder is not a git repository.',
  missing_folder: 'No project commit: the project folder was missing.',
  disabled: 'No project commit: auto-commit is off for this project.',
  unsafe_config: 'No project commit: the repository\'s config could run programs, so git was not run there.',
  unsafe_path: 'No project commit: a file the agent wrote is reached through a symbolic link or lies outside the allowed roots, so git did not commit it.',
  git_error: 'No project commit: git failed in the project folder; the agent\'s edits are left in the working tree.',
  nothing_to_commit: 'No project commit: the agent changed no file in the project during this turn.',
  no_project: 'No project commit: this session has no project folder, so there is no repository to commit to.',
  no_begin: 'No project commit: the turn was recorded without turn.begin (an agent\'s exchange through the recording proxy, or turn.finalize alone), so the project\'s files were not watched.',
  dirty_index: 'No project commit: changes were staged in the project (git add), so the agent\'s edits were left in the working tree beside yours.',
  operation_in_progress: 'No project commit: a merge, rebase, cherry-pick or revert was in progress in the project, so the agent\'s edits were left in the working tree.',
  detached_head: 'No project commit: the project\'s HEAD was detached (no branch to commit on), so the agent\'s edits were left in the working tree.',
};

/** Reasons that are no refusal: nothing needed committing, so they are not shown as a warning. */
const QUIET = new Set(['nothing_to_commit', 'no_project', 'no_begin']);

export function isQuietSkip(reason: string): boolean {
  return QUIET.has(reason);
}

/** Turns committed before the reason was kept, and imported ones, carry none. */
const UNKNOWN_REASON = 'No project commit: this turn was imported or recorded without watching the project folder, so it has no project commit.';

export function skipReasonText(reason: string | null): string {
  if (reason === null) return UNKNOWN_REASON;
  return REASONS[reason] ?? `No project commit (${reason}).`;
}
