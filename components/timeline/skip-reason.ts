/** Why a turn made no project commit, in words (DESIGN §4.8). */
const REASONS: Record<string, string> = {
  dirty_tree: 'No project commit: the project had uncommitted changes before the turn, so the agent\'s edits were left in the working tree.',
  not_a_repo: 'No project commit: the project folder is not a git repository.',
  missing_folder: 'No project commit: the project folder was missing.',
  disabled: 'No project commit: auto-commit is off for this project.',
  unsafe_config: 'No project commit: the repository\'s config could run programs, so git was not run there.',
  dirty_index: 'No project commit: changes were staged in the project (git add), so the agent\'s edits were left in the working tree beside yours.',
  operation_in_progress: 'No project commit: a merge, rebase, cherry-pick or revert was in progress in the project, so the agent\'s edits were left in the working tree.',
  detached_head: 'No project commit: the project\'s HEAD was detached (no branch to commit on), so the agent\'s edits were left in the working tree.',
  unsafe_path: 'No project commit: a written path went through a symbolic link, or the folder now resolves outside the allowed roots.',
  git_error: 'No project commit: git failed in the project folder.',
};

export function skipReasonText(reason: string): string {
  return REASONS[reason] ?? `No project commit (${reason}).`;
}
