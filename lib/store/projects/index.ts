/**
 * Projects and Project-Git: the public surface of lib/store/projects. Plain TypeScript on node
 * built-ins and the git CLI; the session store and the server wire these in.
 */
export {
  ProjectStore,
  DEFAULT_PROJECT_ID,
  DEFAULT_PROJECT_NAME,
  type ProjectStoreOptions,
  type ProjectSummary,
  type ProjectDetail,
  type WorkdirState,
} from './project-store.js';
export { slugify, assertProjectName } from './project-names.js';
export {
  beginProjectTurn,
  finishProjectTurn,
  type ProjectTurnSnapshot,
  type ProjectRepoState,
  type SkipReason,
  type BeginProjectTurnOptions,
  type FinishProjectTurnOptions,
  type FinishProjectTurnResult,
} from './auto-commit.js';
export { readWorkingTreeStatus } from './working-tree-status.js';
export { projectCommits, type ProjectCommit } from './project-commits.js';
export {
  resolveInsideRoots,
  resolveDirectoryInsideRoots,
  isInside,
  type ResolveInsideRootsOptions,
} from './allowed-roots.js';
export { assertRepoSafe, findConfigIssues, forbiddenConfigReason, locateGitDirs, type GitDirs, type ConfigIssue } from '../git/repo-safety.js';
export { ensureProjectRepo, unignoredDependencyFolders, DEPENDENCY_FOLDERS, type EnsureRepoResult } from './init-project-repo.js';
export { runGit, gitText, GitCommandError, GIT_HARDENING_ARGS, type GitRunOptions, type GitResult } from '../git/git-cli.js';
export {
  AGENT_EMAIL,
  agentName,
  agentCommitMessage,
  messageLabel,
  parseAgentTrailers,
} from './commit-message.js';
export { normalizeProjectPath, resolveProjectFile } from './project-paths.js';
export { changedBetween, moveHead, readHead } from './commit-plumbing.js';
export { projectCommitPatch, projectCommitSummaries, type ProjectCommitSummary } from './commit-details.js';
