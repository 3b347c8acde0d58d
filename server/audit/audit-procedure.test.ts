import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UserRecord } from '@/lib/auth/index';

// The runtime reads its environment once: set it before importing anything that opens stores.
const dataDir = join(mkdtempSync(join(tmpdir(), 'em-audit-procedure-')), 'data');
process.env.OPENPROGRAM_DATA_DIR = dataDir;
let runtime: typeof import('@/server/runtime');
let root: typeof import('@/server/api/root');
let admin: UserRecord;
let user: UserRecord;

function callerFor(who: UserRecord, via: 'cookie' | 'token' = 'cookie', ip = '192.0.2.7') {
  return root.createCaller({ headers: new Headers(), user: who, via, authError: null, ip, responseCookies: [], answer: { headers: {} } });
}

beforeAll(async () => {
  runtime = await import('@/server/runtime');
  root = await import('@/server/api/root');
  const users = runtime.getAuthStore().users;
  admin = users.get((await users.create({ email: 'admin@unit.test', password: 'password-1', admin: true })).id)!;
  user = users.get((await users.create({ email: 'user@unit.test', password: 'password-1' })).id)!;
});

afterAll(() => {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
});

describe('the audit log through the procedures', () => {
  it('records token creation and revocation, an admin reset (and a failed one), with who, where and the result', async () => {
    const made = await callerFor(user).token.create({ name: 'audited' });
    await callerFor(user).token.revoke({ id: made.id });
    await callerFor(admin).admin.resetPassword({ userId: user.id, password: 'password-2' });
    await expect(callerFor(admin).admin.resetPassword({ userId: '0000000000000000', password: 'password-2' })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const lines = readFileSync(join(dataDir, 'auth', 'audit.log'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map(({ actor, ip, action, target, result }) => ({ actor, ip, action, target, result }))).toEqual([
      { actor: user.id, ip: '192.0.2.7', action: 'token.create', target: made.id, result: 'success' },
      { actor: user.id, ip: '192.0.2.7', action: 'token.revoke', target: made.id, result: 'success' },
      { actor: admin.id, ip: '192.0.2.7', action: 'admin.resetPassword', target: user.id, result: 'success' },
      { actor: admin.id, ip: '192.0.2.7', action: 'admin.resetPassword', target: '0000000000000000', result: 'failure' },
    ]);
  });

  it('shows an admin everyone\'s entries, filtered; a user, and an admin\'s token, only their own', async () => {
    const all = await callerFor(admin).audit.list({ action: 'admin.resetPassword' });
    expect(all.scope).toBe('all');
    expect(all.entries.map((entry) => entry.result)).toEqual(['failure', 'success']);
    expect(all.entries[0]!.actorName).toBe('admin@unit.test');

    const own = await callerFor(user).audit.list();
    expect(own.scope).toBe('own');
    expect(own.entries.map((entry) => entry.action)).toEqual(['token.revoke', 'token.create']);
    await expect(callerFor(user).audit.list({ actor: admin.id })).rejects.toMatchObject({ code: 'FORBIDDEN' });

    const viaToken = await callerFor(admin, 'token').audit.list();
    expect(viaToken.scope).toBe('own');
    expect(viaToken.entries.every((entry) => entry.actor === admin.id)).toBe(true);
    expect((await callerFor(admin).audit.list({ mine: true })).entries.every((entry) => entry.actor === admin.id)).toBe(true);
  });

  it('pages newest first and refuses a range that ends before it starts', async () => {
    const first = await callerFor(admin).audit.list({ limit: 3 });
    expect(first.entries).toHaveLength(3);
    const second = await callerFor(admin).audit.list({ limit: 3, before: first.next! });
    expect(second.entries.map((entry) => entry.action)).toEqual(['token.create']);
    expect(second.next).toBeNull();
    await expect(callerFor(admin).audit.list({ since: 2, until: 1 })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
