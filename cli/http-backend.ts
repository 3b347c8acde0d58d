import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListScope, SessionRow } from '../lib/store/index.js';
import { CliError, type CliBackend, type UserSummary } from './backend.js';

interface TrpcErrorBody {
  error?: { message?: string; data?: { code?: string } };
}

const KIND_BY_CODE: Record<string, CliError['kind']> = {
  NOT_FOUND: 'not_found',
  BAD_REQUEST: 'bad_input',
  FORBIDDEN: 'refused',
  UNAUTHORIZED: 'refused',
  CONFLICT: 'refused',
  PRECONDITION_FAILED: 'refused',
  TOO_MANY_REQUESTS: 'refused',
};

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

/** Talks to the running server through its tRPC HTTP API, as any agent would. */
export class HttpBackend implements CliBackend {
  readonly mode = 'http' as const;

  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly asUser: string | null,
  ) {}

  private async call<T>(procedure: string, input: unknown, kind: 'query' | 'mutation'): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (this.asUser) headers['x-entity-memory-user'] = this.asUser;
    let response: Response;
    try {
      if (kind === 'query') {
        const query = input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`;
        response = await fetch(`${this.baseUrl}/api/trpc/${procedure}${query}`, { headers });
      } else {
        headers['content-type'] = 'application/json';
        response = await fetch(`${this.baseUrl}/api/trpc/${procedure}`, { method: 'POST', headers, body: JSON.stringify(input ?? {}) });
      }
    } catch (error) {
      throw new CliError(`the server at ${this.baseUrl} did not answer: ${(error as Error).message}`, 'unavailable');
    }
    const body = (await response.json().catch(() => ({}))) as { result?: { data?: T } } & TrpcErrorBody;
    if (!response.ok || body.error) {
      const code = body.error?.data?.code ?? '';
      throw new CliError(body.error?.message ?? `the server answered ${response.status}`, KIND_BY_CODE[code] ?? 'unavailable');
    }
    return body.result?.data as T;
  }

  addUser(input: { email: string; password: string; admin: boolean }): Promise<UserSummary> {
    return this.call('admin.createUser', input, 'mutation');
  }

  listUsers(): Promise<UserSummary[]> {
    return this.call('admin.listUsers', undefined, 'query');
  }

  async setUserDisabled(emailOrId: string, disabled: boolean): Promise<UserSummary> {
    const users = await this.listUsers();
    const user = users.find((candidate) => candidate.id === emailOrId || candidate.email === emailOrId.toLowerCase());
    if (!user) throw new CliError(`no user ${emailOrId}`, 'not_found');
    return this.call('admin.setDisabled', { userId: user.id, disabled }, 'mutation');
  }

  createToken(input: { name: string; expiresAt: number | null }): Promise<{ id: string; token: string }> {
    return this.call('token.create', input.expiresAt === null ? { name: input.name } : input, 'mutation');
  }

  async listSessions(input: { scope: ListScope; limit: number; q?: string }): Promise<SessionRow[]> {
    const rows: SessionRow[] = [];
    let cursor: string | null = null;
    do {
      const page: { rows: SessionRow[]; nextCursor: string | null } = await this.call(
        'session.list',
        { scope: input.scope, limit: Math.min(200, input.limit - rows.length), ...(input.q ? { q: input.q } : {}), ...(cursor ? { cursor } : {}) },
        'query',
      );
      rows.push(...page.rows);
      cursor = page.nextCursor;
    } while (cursor && rows.length < input.limit);
    return rows;
  }

  setArchived(sessionId: string, archived: boolean): Promise<SessionRow> {
    return this.call('session.setArchived', { id: sessionId, archived }, 'mutation');
  }

  rename(sessionId: string, title: string): Promise<SessionRow> {
    return this.call('session.update', { id: sessionId, title }, 'mutation');
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.call('session.delete', { id: sessionId }, 'mutation');
  }

  async close(): Promise<void> {}
}
