import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTRPCClient, httpLink, TRPCClientError, type TRPCClient } from '@trpc/client';
import type { IndexStatus, SearchHit } from '../lib/search/index.js';
import type { ListScope, ProjectBlame, ProjectSummary, SessionRow, TimelinePage } from '../lib/store/index.js';
import type { AppRouter } from '../trpc/types.js';
import type { ResumeFile } from '../lib/resume/index.js';
import { CliError, type CliBackend, type ExportRequest, type ShownSession, type UserSummary } from './backend.js';
import { emptyReport, mergeReports, type ImportInput, type ImportProgress, type ImportReport } from '../lib/import/index.js';
import { isConnectionFailure, notReadyStatus, OWNER_URL_HEADER, retryAfterMs, ServerNotReadyError } from './server-wait.js';
import type { UsageQuery, UsageSummary } from '../lib/usage/index.js';
import { tokenCreateRequest, type TokenCreateInput } from './token-scope-flags.js';

const KIND_BY_CODE: Record<string, CliError['kind']> = {
  NOT_FOUND: 'not_found',
  BAD_REQUEST: 'bad_input',
  FORBIDDEN: 'refused',
  UNAUTHORIZED: 'refused',
  CONFLICT: 'refused',
  PRECONDITION_FAILED: 'refused',
  TOO_MANY_REQUESTS: 'refused',
};

/** The CLI names the user it acts for with this header (server/auth/request-auth.ts CLI_USER_HEADER). */
const CLI_USER_HEADER = 'x-entity-memory-user';

/** The CLI's token, written by the running server; readable by its owner only (0600). */
export function readCliToken(dataDir: string): string {
  const path = join(dataDir, 'auth', 'cli-token');
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      code === 'EACCES' ? `cannot read ${path}: run the CLI as the user that runs the server` : `the running server has not written ${path} yet`,
      'unavailable',
    );
  }
}

/** Talks to the running server through its tRPC HTTP API with tRPC's own client, as any agent would. */
export class HttpBackend implements CliBackend {
  readonly mode = 'http' as const;
  private readonly client: TRPCClient<AppRouter>;
  private readonly headers: Record<string, string>;
  /** where imports go: the server, until a 421 names the instance that owns the user now (a move) */
  private importBase: string;

  constructor(
    private readonly baseUrl: string,
    token: string,
    asUser: string | null,
  ) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (asUser) headers[CLI_USER_HEADER] = asUser;
    this.headers = headers;
    this.importBase = baseUrl;
    // What is not a tRPC answer (no server, a proxy's error page) is reported here, in words.
    const answered: typeof fetch = async (url, init) => {
      let response: Response;
      try {
        response = await fetch(url, init);
      } catch (error) {
        throw new CliError(`the server at ${baseUrl} did not answer: ${(error as Error).message}`, 'unavailable');
      }
      if (!(response.headers.get('content-type') ?? '').includes('json')) {
        throw new CliError(`the server answered ${response.status}`, 'unavailable');
      }
      return response;
    };
    this.client = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${baseUrl}/api/trpc`, headers, fetch: answered })] });
  }

  /** One call, with the server's refusal turned into the CLI's words and exit code. */
  private async call<T>(request: (client: TRPCClient<AppRouter>) => Promise<T>): Promise<T> {
    try {
      return await request(this.client);
    } catch (error) {
      if (error instanceof CliError) throw error;
      if (error instanceof TRPCClientError) {
        if (error.cause instanceof CliError) throw error.cause;
        const code = (error.data as { code?: unknown } | undefined)?.code;
        throw new CliError(error.message, (typeof code === 'string' ? KIND_BY_CODE[code] : undefined) ?? 'unavailable');
      }
      throw error;
    }
  }

  addUser(input: { email: string; password: string; admin: boolean }): Promise<UserSummary> {
    return this.call((api) => api.admin.createUser.mutate(input));
  }

  listUsers(): Promise<UserSummary[]> {
    return this.call((api) => api.admin.listUsers.query());
  }

  private async findUser(emailOrId: string): Promise<UserSummary> {
    const users = await this.listUsers();
    const user = users.find((candidate) => candidate.id === emailOrId || candidate.email === emailOrId.toLowerCase());
    if (!user) throw new CliError(`no user ${emailOrId}`, 'not_found');
    return user;
  }

  async setUserDisabled(emailOrId: string, disabled: boolean): Promise<UserSummary> {
    const user = await this.findUser(emailOrId);
    return this.call((api) => api.admin.setDisabled.mutate({ userId: user.id, disabled }));
  }

  async resetPassword(emailOrId: string, password: string): Promise<UserSummary> {
    const user = await this.findUser(emailOrId);
    return this.call((api) => api.admin.resetPassword.mutate({ userId: user.id, password }));
  }

  createToken(input: TokenCreateInput): Promise<{ id: string; token: string }> {
    return this.call((api) => api.token.create.mutate(tokenCreateRequest(input)));
  }

  async listSessions(input: { scope: ListScope; limit: number; q?: string }): Promise<SessionRow[]> {
    const rows: SessionRow[] = [];
    let cursor: string | null = null;
    do {
      const after = cursor;
      const page: { rows: SessionRow[]; nextCursor: string | null } = await this.call((api) =>
        api.session.list.query({ scope: input.scope, limit: Math.min(200, input.limit - rows.length), ...(input.q ? { q: input.q } : {}), ...(after ? { cursor: after } : {}) }),
      );
      rows.push(...page.rows);
      cursor = page.nextCursor;
    } while (cursor && rows.length < input.limit);
    return rows;
  }

  setArchived(sessionId: string, archived: boolean): Promise<SessionRow> {
    return this.call((api) => api.session.setArchived.mutate({ id: sessionId, archived }));
  }

  rename(sessionId: string, title: string): Promise<SessionRow> {
    return this.call((api) => api.session.update.mutate({ id: sessionId, title }));
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.call((api) => api.session.delete.mutate({ id: sessionId }));
  }

  async showSession(sessionId: string): Promise<ShownSession> {
    const session = await this.call((api) => api.session.get.query({ id: sessionId }));
    const messages = await this.call((api) => api.message.branch.query({ sessionId }));
    return { session, messages };
  }

  listProjects(): Promise<ProjectSummary[]> {
    return this.call((api) => api.project.list.query());
  }

  addProject(input: { path: string; name?: string }): Promise<ProjectSummary & { created: boolean }> {
    return this.call((api) => api.project.create.mutate(input.name === undefined ? { path: input.path } : input));
  }

  usageSummary(query: UsageQuery): Promise<UsageSummary> {
    return this.call((api) => api.usage.summary.query({ ...query, split: query.split ?? undefined }));
  }

  async search(input: { q: string; scope: ListScope; limit: number }): Promise<{ hits: SearchHit[]; status: IndexStatus }> {
    const hits: SearchHit[] = [];
    let cursor: string | null = null;
    let status: IndexStatus;
    do {
      const after: string | null = cursor;
      const page: { hits: SearchHit[]; nextCursor: string | null; status: IndexStatus } = await this.call((api) => api.session.search.query({ q: input.q, scope: input.scope, limit: Math.min(100, input.limit - hits.length), ...(after ? { cursor: after } : {}) }));
      hits.push(...page.hits);
      cursor = page.nextCursor;
      status = page.status;
    } while (cursor && hits.length < input.limit);
    return { hits, status };
  }

  /** The server rebuilds in the background; its progress is polled until it is done. */
  async reindex(onProgress: (status: IndexStatus) => void): Promise<IndexStatus> {
    let status = await this.call((api) => api.session.reindex.mutate());
    while (status.state === 'catching_up') {
      onProgress(status);
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = await this.call((api) => api.session.searchStatus.query());
    }
    onProgress(status);
    return status;
  }

  /** Each file streamed to POST /api/import as it is read from disk; the server parses as it arrives. */
  async importFiles(inputs: ImportInput[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    const report = emptyReport();
    const progress: ImportProgress = {
      bytesDone: 0,
      bytesTotal: inputs.every((input) => input.size !== null) ? inputs.reduce((sum, input) => sum + (input.size ?? 0), 0) : null,
      filesDone: 0,
      filesTotal: inputs.length,
      sessions: 0,
    };
    onProgress?.({ ...progress });
    for (const input of inputs) {
      const counted = (async function* () {
        for await (const chunk of input.open()) {
          progress.bytesDone += chunk.length;
          onProgress?.({ ...progress });
          yield chunk;
        }
      })();
      let response: Response;
      try {
        response = await fetch(`${this.importBase}/api/import?name=${encodeURIComponent(input.name)}`, {
          method: 'POST',
          headers: { ...this.headers, 'content-type': 'application/octet-stream' },
          // undici streams an async iterable body as it is produced
          body: counted as unknown as BodyInit,
          duplex: 'half',
        } as RequestInit);
      } catch (error) {
        const message = `the server at ${this.importBase} did not answer: ${(error as Error).message}`;
        throw isConnectionFailure(error) ? new ServerNotReadyError(message, null) : new CliError(message, 'unavailable');
      }
      const answer = (await response.json().catch(() => null)) as (ImportReport & { error?: string | { message?: string } }) | null;
      // The plain routes say `{error: "…"}`; the one 421 says `{error: {message}}`.
      const said = typeof answer?.error === 'string' ? answer.error : answer?.error?.message;
      // The user was moved: the one 421 names the owner's URL, where the same files go next.
      const owner = response.status === 421 ? response.headers.get(OWNER_URL_HEADER) : null;
      if (owner && /^https?:\/\//.test(owner)) this.importBase = owner.replace(/\/+$/, '');
      if (notReadyStatus(response.status)) {
        throw new ServerNotReadyError(`importing ${input.name}: ${said ?? `the server answered ${response.status}`}`, retryAfterMs(response.headers.get('retry-after')));
      }
      if (!response.ok || !answer || typeof answer.added !== 'number') {
        throw new CliError(`importing ${input.name}: ${said ?? `the server answered ${response.status}`}`, response.status === 401 || response.status === 403 ? 'refused' : 'unavailable');
      }
      mergeReports(report, answer);
      progress.filesDone++;
      progress.sessions += answer.added + answer.updated;
      onProgress?.({ ...progress });
    }
    return report;
  }

  /** A download of /api/export: its body as it arrives, or the server's refusal in words. */
  private async download(path: string): Promise<AsyncIterable<Uint8Array>> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, { headers: this.headers });
    } catch (error) {
      throw new CliError(`the server at ${this.baseUrl} did not answer: ${(error as Error).message}`, 'unavailable');
    }
    if (response.status !== 200 || !response.body) {
      const answer = (await response.json().catch(() => null)) as { error?: string } | null;
      const kind = response.status === 404 ? 'not_found' : response.status === 400 ? 'bad_input' : response.status === 413 ? 'refused' : 'unavailable';
      throw new CliError(answer?.error ?? `the server answered ${response.status}`, kind);
    }
    // Node's fetch body is an async iterable of chunks; the DOM typings do not say so.
    return response.body as unknown as AsyncIterable<Uint8Array>;
  }

  exportSession(input: ExportRequest): Promise<AsyncIterable<Uint8Array>> {
    const query = new URLSearchParams({ format: input.format });
    if (input.format === 'md') {
      query.set('toolCalls', input.toolCalls ? '1' : '0');
      query.set('reasoning', input.reasoning ? '1' : '0');
    }
    return this.download(`/api/export/${encodeURIComponent(input.sessionId)}?${query}`);
  }

  exportAll(): Promise<AsyncIterable<Uint8Array>> {
    return this.download('/api/export/all.zip');
  }

  resume(request: Parameters<CliBackend['resume']>[0]): Promise<ResumeFile> {
    return this.call((client) => client.resume.prepare.mutate(request));
  }

  timelinePage(sessionId: string, cursor: string | null): Promise<TimelinePage> {
    return this.call((api) => api.timeline.list.query({ sessionId, limit: 200, ...(cursor ? { cursor } : {}) }));
  }

  sessionAt(sessionId: string, sha: string): ReturnType<CliBackend['sessionAt']> {
    return this.call((api) => api.timeline.at.query({ sessionId, sha }));
  }

  blame(input: Parameters<CliBackend['blame']>[0]): Promise<ProjectBlame> {
    return this.call((client) => client.project.blame.query(input));
  }

  async close(): Promise<void> {}
}
