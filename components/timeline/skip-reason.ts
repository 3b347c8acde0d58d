/** Why a turn made no project commit, in words (DESIGN §4.8). */
const REASONS: Record<string, string> = {
  dirty_tree: 'No project commit: the project had uncommitted changes before the turn, so the agent\'s edits were left in the working tree.',
  not_a_repo: 'No project commit: the project folder is not a git repository.',
  missing_folder: 'No project commit: the project folder was missing.',
  disabled: 'No project commit: auto-commit is off for this project.',
  unsafe_config: 'No project commit: the repository\'s config could run programs, so git was not run there.',
};

export function skipReasonText(reason: string): string {
  return REASONS[reason] ?? `No project commit (${reason}).`;
}
