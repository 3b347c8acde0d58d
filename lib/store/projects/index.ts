/**
 * Projects and Project-Git: what the rest of lib/store uses of lib/store/projects (tests import
 * their module directly). Plain TypeScript on node built-ins and the git CLI.
 */
export { ProjectStore, type ProjectSummary, type ProjectDetail, type ProjectInspection, type WorkdirState } from './project-store.js';
export { addForkCode, checkForkWorktreePath, defaultForkWorktree, forkBranchName, removeForkWorktree, type ForkCode } from './fork-worktree.js';
export { beginProjectTurn, finishProjectTurn, type ProjectTurnSnapshot } from './auto-commit.js';
export { readWorkingTreeStatus } from './working-tree-status.js';
export { projectCommits, type ProjectCommit } from './project-commits.js';
export { normalizeProjectPath, resolveProjectFile } from './project-paths.js';
export { changedBetween, clearStaleIndexLock, moveHead, readHead } from './commit-plumbing.js';
export { projectCommitPatch, projectCommitSummaries, type ProjectCommitSummary } from './commit-details.js';
export { projectRangePatch, treeBefore } from './range-patch.js';
export { changedSinceBegin, findNestedGit, NESTED_GIT_TRAILER } from './nested-git.js';
export { commitWorkingTree, SHARED_WITH_TRAILER, workingTreeCommitMessage } from './working-tree-commit.js';
export { projectBlame, promptText, sessionTurnPrompts, type BlameLine, type BlameSources, type ProjectBlame } from './blame/project-blame.js';
export { projectFiles, MAX_LISTED_FILES, type ProjectFiles } from './blame/project-files.js';
export { projectCommitRanges, type CommitRanges } from './blame/commit-ranges.js';
