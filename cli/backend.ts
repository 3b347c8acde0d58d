import type { IndexStatus, SearchHit } from '../lib/search/index.js';
import type { ListScope, Message, ProjectBlame, ProjectSummary, SessionDetail, SessionRow, TimelinePage } from '../lib/store/index.js';
import type { ImportInput, ImportProgress, ImportReport } from '../lib/import/index.js';
import type { ResumeFile, ResumeRequest } from '../lib/resume/index.js';
import type { UsageQuery, UsageSummary } from '../lib/usage/index.js';
import type { TokenCreateInput } from './token-scope-flags.js';

/** `agent-trace`: the session's attribution as Agent Trace records, JSON Lines (the route's `?format=agent-trace`). */
export type ExportFormat = 'md' | 'json' | 'bundle' | 'agent-trace';

export interface ExportRequest {
  sessionId: string;
  format: ExportFormat;
  toolCalls: boolean;
  reasoning: boolean;
}

/** Who the CLI acts as, and what it can do: the same answers over HTTP or on the data directory. */
export interface UserSummary {
  id: string;
  email: string;
  admin: boolean;
  disabled: boolean;
}

/** What `sessions show` prints: the session and its current branch, oldest first. */
export interface ShownSession {
  session: SessionDetail;
  messages: Array<Pick<Message, 'id' | 'role' | 'content' | 'name' | 'createdAt'> & { toolCalls: Array<Pick<Message, 'name' | 'content'>> }>;
}

export interface CliBackend {
  readonly mode: 'http' | 'local';
  addUser(input: { email: string; password: string; admin: boolean }): Promise<UserSummary>;
  listUsers(): Promise<UserSummary[]>;
  setUserDisabled(emailOrId: string, disabled: boolean): Promise<UserSummary>;
  /** Also ends the user's open sign-ins. */
  resetPassword(emailOrId: string, password: string): Promise<UserSummary>;
  createToken(input: TokenCreateInput): Promise<{ id: string; token: string }>;
  listSessions(input: { scope: ListScope; limit: number; q?: string }): Promise<SessionRow[]>;
  setArchived(sessionId: string, archived: boolean): Promise<SessionRow>;
  rename(sessionId: string, title: string): Promise<SessionRow>;
  deleteSession(sessionId: string): Promise<void>;
  /** The session and the messages of its current branch, oldest first. */
  showSession(sessionId: string): Promise<ShownSession>;
  listProjects(): Promise<ProjectSummary[]>;
  addProject(input: { path: string; name?: string }): Promise<ProjectSummary & { created: boolean }>;
  /** full text; `onProgress` while the index catches up first (local mode waits for it) */
  search(input: { q: string; scope: ListScope; limit: number }, onProgress?: (status: IndexStatus) => void): Promise<{ hits: SearchHit[]; status: IndexStatus }>;
  /** DESIGN §15: the acting user's usage and cost over UTC days, from the rollups (local mode waits for them to catch up) */
  usageSummary(query: UsageQuery): Promise<UsageSummary>;
  /** the index emptied and rebuilt from the sessions, with progress */
  reindex(onProgress: (status: IndexStatus) => void): Promise<IndexStatus>;
  /** DESIGN §10: the files into the acting user's sessions, with progress; one report. */
  importFiles(inputs: ImportInput[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport>;
  /** a session as Markdown, JSON or a git bundle, as it is made */
  exportSession(input: ExportRequest): Promise<AsyncIterable<string | Uint8Array>>;
  /** every session of the user as one zip, as it is made */
  exportAll(): Promise<AsyncIterable<string | Uint8Array>>;
  /** DESIGN §14: the branch up to a turn as the agent's transcript (the CLI writes it). */
  resume(request: Omit<ResumeRequest, 'cwd' | 'now'> & { cwd?: string }): Promise<ResumeFile>;
  /** timeline.list: a page of the session's turns, newest first, with their project commits (bisect reads them all). */
  timelinePage(sessionId: string, cursor: string | null): Promise<TimelinePage>;
  /** timeline.at: the session as a turn commit holds it (a turn's prompt and reply). */
  sessionAt(sessionId: string, sha: string): Promise<{ messages: Array<Pick<Message, 'id' | 'role' | 'content'>> }>;
  /** DESIGN §14: project.blame of one file of a project. */
  blame(input: { projectId: string; path: string; rev?: string }): Promise<ProjectBlame>;
  close(): Promise<void>;
}

/** A refusal the CLI reports in words, with the exit code of a failed command. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly kind: 'not_found' | 'bad_input' | 'refused' | 'unavailable',
    /** the process's exit code when the kind's does not fit (130: stopped by SIGINT) */
    readonly exitCode?: number,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
