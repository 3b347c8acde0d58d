import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { AuthStore } from './auth-store.js';
import { SignInRateLimiter } from './rate-limit.js';
import type { AuthError } from './errors.js';
import { useTempDir } from './testing/temp-dir.js';

describe('AuthStore', () => {
  const tempDir = useTempDir();

  it('issues a setup code on first run and accepts it exactly once', async () => {
    const store = new AuthStore(tempDir());
    const log = await store.bootstrap({});
    const code = /setup code: (\S+)/.exec(log.join('\n'))?.[1];
    expect(code).toBeDefined();
    expect(store.needsSetup).toBe(true);
    await expect(store.createFirstAdmin({ code: 'WRONG-CODE-0000', email: 'a@x.org', password: 'password-1', ip: null }))
      .rejects.toMatchObject({ code: 'FORBIDDEN' });
    const admin = await store.createFirstAdmin({ code: code!, email: 'a@x.org', password: 'password-1', ip: null });
    expect(admin.admin).toBe(true);
    await expect(store.createFirstAdmin({ code: code!, email: 'b@x.org', password: 'password-1', ip: null }))
      .rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('creates the admin from the environment once, then ignores it with a warning', async () => {
    const dir = tempDir();
    const env = { adminEmail: 'root@x.org', adminPassword: 'password-1' };
    const first = await new AuthStore(dir).bootstrap(env);
    expect(first.join('\n')).toMatch(/Created the admin account root@x.org/);
    const second = new AuthStore(dir);
    expect((await second.bootstrap({ ...env, adminEmail: 'other@x.org' })).join('\n')).toMatch(/ignored: an admin already exists/);
    expect(second.users.list().map((u) => u.email)).toEqual(['root@x.org']);
    expect(second.needsSetup).toBe(false);
  });

  it('reports bad admin variables instead of failing the start', async () => {
    const store = new AuthStore(tempDir());
    const log = (await store.bootstrap({ adminEmail: 'root@x.org', adminPassword: 'short' })).join('\n');
    expect(log).toMatch(/not used: password must be at least 8 characters/);
    expect(log).toMatch(/setup code: /);
  });

  it('rate-limits sign-in before hashing', async () => {
    const store = new AuthStore(tempDir(), {
      limiter: new SignInRateLimiter({
        ip: { max: 100, windowMs: 60_000 },
        pair: { max: 2, windowMs: 60_000 },
        account: { max: 2, windowMs: 60_000, delayMs: 60_000 },
      }),
    });
    await store.bootstrap({ adminEmail: 'root@x.org', adminPassword: 'password-1' });
    const verify = vi.spyOn(store.users, 'verifyCredentials');
    expect(await store.signIn('root@x.org', 'nope-nope', '1.2.3.4')).toEqual({ ok: false, reason: 'invalid' });
    expect(await store.signIn('root@x.org', 'nope-nope', '1.2.3.4')).toEqual({ ok: false, reason: 'invalid' });
    expect(verify).toHaveBeenCalledTimes(2);
    const refused = await store.signIn('root@x.org', 'password-1', '1.2.3.4');
    expect(refused).toMatchObject({ ok: false, reason: 'rate_limited' });
    expect(verify).toHaveBeenCalledTimes(2); // the refused attempt never reached the hash
    verify.mockRestore();
  });

  it('counts wrong current passwords of a password change toward the sign-in limit', async () => {
    const store = new AuthStore(tempDir());
    await store.bootstrap({ adminEmail: 'root@x.org', adminPassword: 'password-1' });
    const id = store.users.findByEmail('root@x.org')!.id;
    const verify = vi.spyOn(store.users, 'changePassword');
    const answers: string[] = [];
    for (let i = 0; i < 15; i++) {
      answers.push(await store.changePassword(id, `wrong-${i}`, 'password-2', '1.2.3.4').then(() => 'ok', (e: AuthError) => e.code));
    }
    expect(answers.slice(0, 10)).toEqual(Array(10).fill('BAD_REQUEST'));
    expect(answers.slice(10)).toEqual(Array(5).fill('TOO_MANY_REQUESTS'));
    expect(verify).toHaveBeenCalledTimes(10); // refused tries never reach the hash
    await expect(store.changePassword(id, 'password-1', 'password-2', '1.2.3.4')).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    verify.mockRestore();
    // The same sign-in limit: this address cannot sign in as this account either.
    expect(await store.signIn('root@x.org', 'password-1', '1.2.3.4')).toMatchObject({ ok: false, reason: 'rate_limited' });
  });

  it('validates sessions by user, enabled flag and session version', async () => {
    const store = new AuthStore(tempDir());
    await store.bootstrap({ adminEmail: 'root@x.org', adminPassword: 'password-1' });
    const user = await store.users.create({ email: 'a@x.org', password: 'password-1' });
    expect(store.sessionUser(user.id, 1)?.email).toBe('a@x.org');
    await store.users.setDisabled(user.id, true);
    expect(store.sessionUser(user.id, 1)).toBeNull();
    await store.users.setDisabled(user.id, false);
    expect(store.sessionUser(user.id, 1)).toBeNull(); // the old cookie stays dead after re-enabling
    expect(store.sessionUser(user.id, 2)?.email).toBe('a@x.org');
  });

  it('refuses tokens of a disabled user', async () => {
    const store = new AuthStore(tempDir());
    await store.bootstrap({ adminEmail: 'root@x.org', adminPassword: 'password-1' });
    const user = await store.users.create({ email: 'a@x.org', password: 'password-1' });
    const { token } = await store.tokens.create(user.id, { name: 'agent' });
    expect(store.authenticateToken(token)?.user.id).toBe(user.id);
    await store.users.setDisabled(user.id, true);
    expect(store.authenticateToken(token)).toBeNull();
  });

  it('opens sign-up only when the admin allows it', async () => {
    const store = new AuthStore(tempDir());
    await expect(store.signUp({ email: 'a@x.org', password: 'password-1' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await store.users.setSignupOpen(true);
    expect((await store.signUp({ email: 'a@x.org', password: 'password-1' })).admin).toBe(false);
  });

  it('writes a CLI token (0600) and recognises only the current one', () => {
    const dir = tempDir();
    const store = new AuthStore(dir);
    const first = store.writeCliToken();
    expect(readFileSync(join(dir, 'cli-token'), 'utf8').trim()).toBe(first);
    expect(statSync(join(dir, 'cli-token')).mode & 0o777).toBe(0o600);
    expect(store.isCliToken(first)).toBe(true);
    const second = store.writeCliToken();
    expect(store.isCliToken(first)).toBe(false);
    expect(store.isCliToken(second)).toBe(true);
  });
});
