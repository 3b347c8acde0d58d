import { join } from 'node:path';
import { Readable } from 'node:stream';
import { mkdirSync } from 'node:fs';
import { AuthError, AuthStore, ProjectRootsFile, type UserRecord } from '../lib/auth/index.js';
import { acquireDataDirLock } from '../lib/process/data-dir-lock.js';
import { SearchIndex, SearchInputError, storeSource, type IndexStatus, type SearchHit } from '../lib/search/index.js';
import { projectBlame, SessionStore, StoreError, type ListScope, type ProjectBlame, type ProjectSummary, type SessionRow, type TimelinePage } from '../lib/store/index.js';
import { CliError, type CliBackend, type ExportRequest, type ShownSession, type UserSummary } from './backend.js';
import { redactMessage } from '../lib/redact/index.js';
import { importInputs, type ImportInput, type ImportProgress, type ImportReport } from '../lib/import/index.js';
import { defaultResumeFolder, prepareResume, type ResumeFile } from '../lib/resume/index.js';
import { agentTraceJsonl, allSessionIds, ExportTooLargeError, markdownExport, sessionBundle, sessionJson, sessionsZip } from '../lib/export/index.js';
import { PriceBook, readPrices, summarize, UsageRollups, type UsageQuery, type UsageSummary } from '../lib/usage/index.js';
import { tokenCreateRequest, type TokenCreateInput } from './token-scope-flags.js';

const KIND_BY_CODE: Record<string, CliError['kind']> = {
  NOT_FOUND: 'not_found',
  BAD_REQUEST: 'bad_input',
};

/** Store and auth errors in the CLI's words. */
async function translated<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ExportTooLargeError) throw new CliError(error.message, 'refused');
    if (error instanceof StoreError || error instanceof AuthError || error instanceof SearchInputError) {
      throw new CliError(error.message, KIND_BY_CODE[error.code] ?? 'refused');
    }
    throw error;
  }
}

function summary(user: Pick<UserRecord, 'id' | 'email' | 'admin' | 'disabled'>): UserSummary {
  return { id: user.id, email: user.email, admin: user.admin, disabled: user.disabled };
}

/**
 * Works on the data directory itself, used only while no server holds it: it takes the same
 * lock a server takes, so a server cannot start underneath it.
 */
export class LocalBackend implements CliBackend {
  readonly mode = 'local' as const;
  private store: SessionStore | null = null;
  private index: SearchIndex | null = null;
  private usage: UsageRollups | null = null;

  private constructor(
    private readonly dataDir: string,
    private readonly auth: AuthStore,
    private readonly asUser: string | null,
    private readonly release: () => void,
  ) {}

  static open(dataDir: string, asUser: string | null): LocalBackend {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const release = acquireDataDirLock(dataDir, null);
    try {
      return new LocalBackend(dataDir, new AuthStore(join(dataDir, 'auth'), { secret: process.env['NEXTAUTH_SECRET'] }), asUser, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  private actingUser(): UserRecord {
    const user = this.asUser ? this.auth.users.findByEmail(this.asUser) : this.auth.users.firstEnabledAdmin();
    if (!user) throw new CliError(this.asUser ? `no user ${this.asUser}` : 'no admin exists yet: create one with `users add <email> --password … --admin`', 'not_found');
    if (user.disabled) throw new CliError(`user ${user.email} is disabled`, 'refused');
    return user;
  }

  private async sessions(): Promise<SessionStore> {
    if (!this.store) {
      const user = this.actingUser();
      const workspaceRoot = join(this.dataDir, 'workspaces', user.id);
      mkdirSync(workspaceRoot, { recursive: true, mode: 0o700 });
      // The user's Settings choice holds here too: the CLI is one more way in.
      const redactor = this.auth.users.prefsOf(user.id).redactSecrets ? redactMessage : null;
      // The project roots an admin gave the user, as the server opens the store (an imported state
      // directory's projects must be inside them).
      const roots = new ProjectRootsFile(this.dataDir);
      await roots.loadEnv(process.env['OPENPROGRAM_ALLOWED_ROOTS'], (who) => (this.auth.users.get(who) ?? this.auth.users.findByEmail(who))?.id ?? null);
      this.store = await SessionStore.open({ stateDir: join(this.dataDir, 'users', user.id), workspaceRoot, allowedRoots: roots.rootsOf(user.id), redactor });
    }
    return this.store;
  }

  addUser(input: { email: string; password: string; admin: boolean }): Promise<UserSummary> {
    return translated(async () => summary(await this.auth.users.create(input)));
  }

  async listUsers(): Promise<UserSummary[]> {
    return this.auth.users.list().map(summary);
  }

  setUserDisabled(emailOrId: string, disabled: boolean): Promise<UserSummary> {
    return translated(async () => {
      const user = this.auth.users.get(emailOrId) ?? this.auth.users.findByEmail(emailOrId);
      if (!user) throw new CliError(`no user ${emailOrId}`, 'not_found');
      return summary(await this.auth.users.setDisabled(user.id, disabled));
    });
  }

  resetPassword(emailOrId: string, password: string): Promise<UserSummary> {
    return translated(async () => {
      const user = this.auth.users.get(emailOrId) ?? this.auth.users.findByEmail(emailOrId);
      if (!user) throw new CliError(`no user ${emailOrId}`, 'not_found');
      return summary(await this.auth.users.resetPassword(user.id, password));
    });
  }

  createToken(input: TokenCreateInput): Promise<{ id: string; token: string }> {
    return translated(async () => {
      if (input.projectId && !(await (await this.sessions()).listProjects()).some((project) => project.id === input.projectId)) {
        throw new CliError(`no such project: ${input.projectId}`, 'not_found');
      }
      const { id, token } = await this.auth.tokens.create(this.actingUser().id, tokenCreateRequest(input));
      return { id, token };
    });
  }

  listSessions(input: { scope: ListScope; limit: number; q?: string }): Promise<SessionRow[]> {
    return translated(async () => {
      const store = await this.sessions();
      const rows: SessionRow[] = [];
      let cursor: string | null = null;
      do {
        const page = store.listSessions({ scope: input.scope, q: input.q, limit: Math.min(200, input.limit - rows.length), cursor });
        rows.push(...page.rows);
        cursor = page.nextCursor;
      } while (cursor && rows.length < input.limit);
      return rows;
    });
  }

  setArchived(sessionId: string, archived: boolean): Promise<SessionRow> {
    return translated(async () => (await this.sessions()).setArchived(sessionId, archived));
  }

  rename(sessionId: string, title: string): Promise<SessionRow> {
    return translated(async () => (await this.sessions()).updateSession(sessionId, { title }));
  }

  importFiles(inputs: ImportInput[], onProgress?: (progress: ImportProgress) => void): Promise<ImportReport> {
    return translated(async () => importInputs(await this.sessions(), inputs, { onProgress }));
  }

  deleteSession(sessionId: string): Promise<void> {
    return translated(async () => {
      await (await this.sessions()).deleteSession(sessionId);
    });
  }

  showSession(sessionId: string): Promise<ShownSession> {
    return translated(async () => {
      const store = await this.sessions();
      const session = await store.getSession(sessionId);
      return { session, messages: await store.getBranch(sessionId) };
    });
  }

  listProjects(): Promise<ProjectSummary[]> {
    return translated(async () => (await this.sessions()).listProjects());
  }

  addProject(input: { path: string; name?: string }): Promise<ProjectSummary & { created: boolean }> {
    return translated(async () => (await this.sessions()).createProject(input.path, input.name));
  }

  /** The acting user's index, as the server opens it (users/<id>/search.sqlite), caught up. */
  private async searchIndex(onProgress?: (status: IndexStatus) => void): Promise<SearchIndex> {
    if (!this.index) {
      const store = await this.sessions();
      const path = join(this.dataDir, 'users', this.actingUser().id, 'search.sqlite');
      this.index = await SearchIndex.open({ path, source: storeSource(store) });
    }
    // A missing or stale index is being rebuilt: report it until it is whole.
    while (this.index.status.state === 'catching_up') {
      onProgress?.(this.index.status);
      await Promise.race([this.index.caughtUp(), new Promise((resolve) => setTimeout(resolve, 200))]);
    }
    return this.index;
  }

  search(input: { q: string; scope: ListScope; limit: number }, onProgress?: (status: IndexStatus) => void): Promise<{ hits: SearchHit[]; status: IndexStatus }> {
    return translated(async () => {
      const index = await this.searchIndex(onProgress);
      const hits: SearchHit[] = [];
      let cursor: string | null = null;
      do {
        const page = index.search(input.q, { scope: input.scope, limit: Math.min(100, input.limit - hits.length), cursor });
        hits.push(...page.hits);
        cursor = page.nextCursor;
      } while (cursor && hits.length < input.limit);
      return { hits, status: index.status };
    });
  }

  usageSummary(query: UsageQuery): Promise<UsageSummary> {
    return translated(async () => {
      const store = await this.sessions();
      this.usage ??= await UsageRollups.open({ path: join(this.dataDir, 'users', this.actingUser().id, 'usage.sqlite'), source: storeSource(store) });
      await this.usage.caughtUp();
      return summarize([{ owner: this.actingUser().email, db: this.usage.database! }], new PriceBook(readPrices(this.dataDir)), query);
    });
  }

  reindex(onProgress: (status: IndexStatus) => void): Promise<IndexStatus> {
    return translated(async () => {
      const index = await this.searchIndex();
      await index.rebuild(onProgress);
      return index.status;
    });
  }

  async exportSession(input: ExportRequest): Promise<AsyncIterable<string | Uint8Array>> {
    return translated(async () => {
      const store = await this.sessions();
      if (!store.hasSession(input.sessionId)) throw new CliError(`unknown session: ${input.sessionId}`, 'not_found');
      if (input.format === 'json') return sessionJson(store, input.sessionId);
      if (input.format === 'bundle') return (await sessionBundle(store, input.sessionId)).chunks;
      if (input.format === 'agent-trace') return agentTraceJsonl(store, input.sessionId);
      const markdown = await markdownExport(store, input.sessionId, {
        toolCalls: input.toolCalls,
        reasoning: input.reasoning,
        attachmentUrl: (id, file) => `/api/attachments/${encodeURIComponent(id)}/${encodeURIComponent(file)}`,
      });
      return Readable.from(markdown.parts());
    });
  }

  async exportAll(): Promise<AsyncIterable<string | Uint8Array>> {
    return translated(async () => {
      const store = await this.sessions();
      return sessionsZip(store, allSessionIds(store));
    });
  }

  resume(request: Parameters<CliBackend['resume']>[0]): Promise<ResumeFile> {
    return translated(async () => {
      const store = await this.sessions();
      if (!store.hasSession(request.sessionId)) throw new CliError(`unknown session: ${request.sessionId}`, 'not_found');
      const cwd = request.cwd ?? (await defaultResumeFolder(store, request.sessionId));
      return prepareResume(store, { dataDir: this.dataDir, userId: this.actingUser().id }, { ...request, cwd });
    });
  }

  timelinePage(sessionId: string, cursor: string | null): Promise<TimelinePage> {
    return translated(async () => (await this.sessions()).listTurns(sessionId, { limit: 200, cursor }));
  }

  sessionAt(sessionId: string, sha: string): ReturnType<CliBackend['sessionAt']> {
    return translated(async () => (await this.sessions()).branchAt(sessionId, sha));
  }

  blame(input: Parameters<CliBackend['blame']>[0]): Promise<ProjectBlame> {
    return translated(async () => projectBlame(await this.sessions(), input));
  }

  async close(): Promise<void> {
    try {
      await this.index?.close();
      await this.usage?.close();
      await this.store?.close();
      this.auth.flushSync();
    } finally {
      this.release();
    }
  }
}
