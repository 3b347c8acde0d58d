import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './testing/temp-dir.js';
import { UserStore } from './users.js';

describe('UserStore', () => {
  const tempDir = useTempDir();

  it('creates users atomically in users.json (0600) without the password', async () => {
    const dir = tempDir();
    const store = new UserStore(dir);
    const user = await store.create({ email: ' Ada@Example.org ', password: 'password-1', admin: true });
    expect(user).toMatchObject({ email: 'ada@example.org', admin: true, disabled: false, sessionVersion: 1 });
    expect(user.id).toMatch(/^[0-9a-f]{16}$/);
    expect(user).not.toHaveProperty('passwordHash');
    const file = join(dir, 'users.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('password-1');
    expect(new UserStore(dir).findByEmail('ADA@example.org')?.id).toBe(user.id);
  });

  it('refuses a duplicate email, a bad email and a short password, writing nothing', async () => {
    const dir = tempDir();
    const store = new UserStore(dir);
    await store.create({ email: 'a@x.org', password: 'password-1' });
    await expect(store.create({ email: 'A@X.org', password: 'password-2' })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(store.create({ email: 'not-an-email', password: 'password-2' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(store.create({ email: 'b@x.org', password: 'short' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(new UserStore(dir).list().map((u) => u.email)).toEqual(['a@x.org']);
  });

  it('verifies credentials, refusing wrong passwords, unknown emails and disabled users', async () => {
    const store = new UserStore(tempDir());
    const admin = await store.create({ email: 'root@x.org', password: 'password-0', admin: true });
    const user = await store.create({ email: 'a@x.org', password: 'password-1' });
    expect((await store.verifyCredentials('a@x.org', 'password-1'))?.id).toBe(user.id);
    expect(await store.verifyCredentials('a@x.org', 'password-2')).toBeNull();
    expect(await store.verifyCredentials('nobody@x.org', 'password-1')).toBeNull();
    await store.setDisabled(user.id, true);
    expect(await store.verifyCredentials('a@x.org', 'password-1')).toBeNull();
    expect(admin.admin).toBe(true);
  });

  it('bumps the session version on disable, on reset and on an own change, not on enable', async () => {
    const store = new UserStore(tempDir());
    await store.create({ email: 'root@x.org', password: 'password-0', admin: true });
    const user = await store.create({ email: 'a@x.org', password: 'password-1' });
    expect((await store.setDisabled(user.id, true)).sessionVersion).toBe(2);
    expect((await store.setDisabled(user.id, false)).sessionVersion).toBe(2);
    expect((await store.resetPassword(user.id, 'password-2')).sessionVersion).toBe(3);
    expect(await store.verifyCredentials('a@x.org', 'password-1')).toBeNull();
    expect(await store.verifyCredentials('a@x.org', 'password-2')).not.toBeNull();
    expect((await store.changePassword(user.id, 'password-2', 'password-3')).sessionVersion).toBe(4);
    await expect(store.changePassword(user.id, 'wrong-one', 'password-4')).rejects.toThrow(/current password is wrong/);
    expect(store.get(user.id)!.sessionVersion).toBe(4);
  });

  it('tells its listeners whenever a user\'s sign-ins end, and only then', async () => {
    const store = new UserStore(tempDir());
    await store.create({ email: 'root@x.org', password: 'password-0', admin: true });
    const user = await store.create({ email: 'a@x.org', password: 'password-1' });
    const ended: string[] = [];
    store.onAccessChange((id) => ended.push(id));
    await store.setDisabled(user.id, true);
    await store.setDisabled(user.id, false);
    await store.resetPassword(user.id, 'password-2');
    await store.changePassword(user.id, 'password-2', 'password-3');
    expect(ended).toEqual([user.id, user.id, user.id]);
  });

  it('keeps at least one enabled admin', async () => {
    const store = new UserStore(tempDir());
    const admin = await store.create({ email: 'root@x.org', password: 'password-0', admin: true });
    await expect(store.setDisabled(admin.id, true)).rejects.toThrow(/last enabled admin/);
  });

  it('answers NOT_FOUND for unknown or malformed ids', async () => {
    const store = new UserStore(tempDir());
    await expect(store.setDisabled('0123456789abcdef', true)).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    await expect(store.setDisabled('../../etc', true)).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('persists the sign-up switch', async () => {
    const dir = tempDir();
    const store = new UserStore(dir);
    expect(store.signupOpen).toBe(false);
    await store.setSignupOpen(true);
    expect(new UserStore(dir).signupOpen).toBe(true);
  });
});
