import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import type { TokenAccess, TokenScope, UserRecord } from '@/lib/auth/index';

// The runtime reads its environment once: set it before importing anything that opens stores.
const dataDir = join(mkdtempSync(join(tmpdir(), 'em-token-access-')), 'data');
process.env.OPENPROGRAM_DATA_DIR = dataDir;
let runtime: typeof import('@/server/runtime');
let root: typeof import('./root');

const USER = '0123456789abcdef';
const user: UserRecord = { id: USER, email: 'scopes@unit.test', passwordHash: 'x', admin: false, disabled: false, sessionVersion: 1, createdAt: 0, updatedAt: 0 };

function callerWith(access: TokenAccess | undefined) {
  return root.createCaller({ headers: new Headers(), user, via: 'token', access, authError: null, ip: null, responseCookies: [], answer: { headers: {} } });
}
const only = (...scopes: TokenScope[]) => callerWith({ scopes, projectId: null });

/** The tRPC error a call was refused with (vitest's `rejects` keeps the TRPCError's code and message). */
async function failure(promise: Promise<unknown>): Promise<TRPCError> {
  const error: unknown = await promise.then(() => null, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(TRPCError);
  return error as TRPCError;
}

beforeAll(async () => {
  runtime = await import('@/server/runtime');
  root = await import('./root');
});

afterAll(async () => {
  await (await runtime.getUserStore(USER)).close();
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

describe('a token\'s scopes on the procedures', () => {
  it('lets a read token read and refuses its writes with 403 naming the scope, writing nothing', async () => {
    await callerWith(undefined).session.create({ id: 'scoped' });
    const reader = only('read');
    expect((await reader.session.list()).rows.map((row) => row.id)).toContain('scoped');
    const refused = await failure(reader.session.update({ id: 'scoped', title: 'renamed' }));
    expect(refused.code).toBe('FORBIDDEN');
    expect(refused.message).toMatch(/lacks the "write" scope/);
    expect((await reader.session.get({ id: 'scoped' })).title).not.toBe('renamed');
  });

  it('refuses a write, proxy, import or mcp token the API\'s reads', async () => {
    for (const scope of ['write', 'proxy', 'import', 'mcp'] as const) {
      const refused = await failure(only(scope).session.list());
      expect(refused.code).toBe('FORBIDDEN');
      expect(refused.message).toMatch(/lacks the "read" scope/);
    }
    expect((await only('write').session.create({ id: 'written' })).id).toBe('written');
  });
});

describe('a token limited to one project', () => {
  it('reads only that project\'s sessions, writes only there, and cannot call what is not kept to a project', async () => {
    const full = callerWith(undefined);
    const project = await full.project.create({ path: 'limited-project' });
    await full.session.create({ id: 'inside', projectId: project.id });
    await full.session.create({ id: 'outside' });
    const limited = callerWith({ scopes: ['read', 'write'], projectId: project.id });

    expect((await limited.session.list({ scope: 'all' })).rows.map((row) => row.id)).toEqual(['inside']);
    expect((await limited.session.list({ projectId: 'default' })).rows).toEqual([]);
    expect((await failure(limited.session.get({ id: 'outside' }))).code).toBe('NOT_FOUND');
    expect((await limited.session.get({ id: 'inside' })).projectId).toBe(project.id);

    const write = await failure(limited.message.append({ sessionId: 'outside', message: { role: 'user', content: 'no' } }));
    expect(write.code).toBe('FORBIDDEN');
    expect(write.message).toMatch(/limited to the project/);
    expect(JSON.stringify(await full.message.branch({ sessionId: 'outside' }))).not.toContain('"no"');

    // A new session goes to the token's project; another project is refused.
    expect((await limited.session.create({ id: 'made-inside' })).id).toBe('made-inside');
    expect((await full.session.get({ id: 'made-inside' })).projectId).toBe(project.id);
    expect((await failure(limited.session.create({ id: 'made-outside', projectId: 'default' }))).code).toBe('FORBIDDEN');
    expect((await full.session.list({ scope: 'all' })).rows.map((row) => row.id)).not.toContain('made-outside');

    const unkept = await failure(limited.project.list());
    expect(unkept.code).toBe('FORBIDDEN');
    expect(unkept.message).toMatch(/cannot call project\.list/);
    expect((await limited.user.me()).id).toBe(USER);
  });
});
