/** What the project store takes and answers (DESIGN §4 names). */

export interface ProjectStoreOptions {
  /** The user's OpenProgram state directory (holds `projects/projects.json`). */
  stateDir: string;
  /** The user's workspace folder: the default project's path and the base of relative paths. */
  workspaceRoot: string;
  /** Where project folders may live; defaults to `[workspaceRoot]`. */
  allowedRoots?: readonly string[];
}

export interface ProjectSummary {
  id: string;
  name: string;
  path: string;
  isDefault: boolean;
  pathMissing: boolean;
  sessionCount: number;
  autoCommit: boolean;
}

export interface ProjectDetail extends ProjectSummary {
  sessionIds: string[];
  status: string;
  /** Milliseconds. */
  createdAt: number;
}

export interface ProjectInspection {
  path: string;
  exists: boolean;
  isRepository: boolean;
  /** the project this folder already is (the default one for the workspace root), or null */
  projectId: string | null;
  /** dependency or build folders no .gitignore excludes: a git init here is refused */
  initBlockers: string[];
}

export type WorkdirState = { state: 'ok'; path: string } | { state: 'missing'; path: string };
