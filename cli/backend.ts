import type { ListScope, SessionRow } from '../lib/store/index.js';

export type ExportFormat = 'md' | 'json' | 'bundle';

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

export interface CliBackend {
  readonly mode: 'http' | 'local';
  addUser(input: { email: string; password: string; admin: boolean }): Promise<UserSummary>;
  listUsers(): Promise<UserSummary[]>;
  setUserDisabled(emailOrId: string, disabled: boolean): Promise<UserSummary>;
  createToken(input: { name: string; expiresAt: number | null }): Promise<{ id: string; token: string }>;
  listSessions(input: { scope: ListScope; limit: number; q?: string }): Promise<SessionRow[]>;
  setArchived(sessionId: string, archived: boolean): Promise<SessionRow>;
  rename(sessionId: string, title: string): Promise<SessionRow>;
  deleteSession(sessionId: string): Promise<void>;
  /** a session as Markdown, JSON or a git bundle, as it is made */
  exportSession(input: ExportRequest): Promise<AsyncIterable<string | Uint8Array>>;
  /** every session of the user as one zip, as it is made */
  exportAll(): Promise<AsyncIterable<string | Uint8Array>>;
  close(): Promise<void>;
}

/** A refusal the CLI reports in words, with the exit code of a failed command. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly kind: 'not_found' | 'bad_input' | 'refused' | 'unavailable',
  ) {
    super(message);
    this.name = 'CliError';
  }
}
