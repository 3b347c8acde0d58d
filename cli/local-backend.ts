import { join } from 'node:path';
import { Readable } from 'node:stream';
import { mkdirSync } from 'node:fs';
import { AuthError, AuthStore, type UserRecord } from '../lib/auth/index.js';
import { acquireDataDirLock } from '../lib/process/data-dir-lock.js';
import { SessionStore, StoreError, type ListScope, type SessionRow } from '../lib/store/index.js';
import { allSessionIds, ExportTooLargeError, markdownExport, sessionBundle, sessionJson, sessionsZip } from '../lib/export/index.js';
import { CliError, type CliBackend, type ExportRequest, type UserSummary } from './backend.js';

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
    if (error instanceof StoreError || error instanceof AuthError) {
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
      this.store = await SessionStore.open({ stateDir: join(this.dataDir, 'users', user.id), workspaceRoot });
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
    return translated(() => {
      const user = this.auth.users.get(emailOrId) ?? this.auth.users.findByEmail(emailOrId);
      if (!user) throw new CliError(`no user ${emailOrId}`, 'not_found');
      return summary(this.auth.users.setDisabled(user.id, disabled));
    });
  }

  createToken(input: { name: string; expiresAt: number | null }): Promise<{ id: string; token: string }> {
    return translated(() => {
      const { id, token } = this.auth.tokens.create(this.actingUser().id, input);
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

  deleteSession(sessionId: string): Promise<void> {
    return translated(async () => {
      await (await this.sessions()).deleteSession(sessionId);
    });
  }

  async exportSession(input: ExportRequest): Promise<AsyncIterable<string | Uint8Array>> {
    return translated(async () => {
      const store = await this.sessions();
      if (!store.hasSession(input.sessionId)) throw new CliError(`unknown session: ${input.sessionId}`, 'not_found');
      if (input.format === 'json') return sessionJson(store, input.sessionId);
      if (input.format === 'bundle') return (await sessionBundle(store, input.sessionId)).chunks;
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

  async close(): Promise<void> {
    try {
      await this.store?.close();
      this.auth.flushSync();
    } finally {
      this.release();
    }
  }
}
