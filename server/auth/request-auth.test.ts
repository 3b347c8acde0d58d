import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from 'next-auth/jwt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuthStore } from '@/lib/auth/index';
import { authenticatePageRequest, authenticateRequest, CLI_USER_HEADER } from './request-auth';

describe('authenticateRequest', () => {
  let dir: string;
  let auth: AuthStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'em-request-auth-'));
    auth = new AuthStore(join(dir, 'auth'));
    await auth.bootstrap({ adminEmail: 'root@x.org', adminPassword: 'password-1' });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function cookieFor(uid: string, sv: number, secret = auth.secret): Promise<Headers> {
    const token = await encode({ token: { uid, sv }, secret });
    return new Headers({ cookie: `other=1; next-auth.session-token=${token}` });
  }

  it('accepts a genuine cookie while the session version is current', async () => {
    const user = await auth.users.create({ email: 'a@x.org', password: 'password-1' });
    const outcome = await authenticateRequest(await cookieFor(user.id, 1), auth);
    expect(outcome.kind === 'ok' && outcome.auth.via).toBe('cookie');
    if (outcome.kind !== 'ok') throw new Error('not ok');
    expect(outcome.auth.stillValid()).toBe(true);
    await auth.users.setDisabled(user.id, true);
    expect(outcome.auth.stillValid()).toBe(false);
    expect((await authenticateRequest(await cookieFor(user.id, 1), auth)).kind).toBe('anonymous');
  });

  it('ignores a cookie signed with another secret or naming an old version', async () => {
    const user = await auth.users.create({ email: 'a@x.org', password: 'password-1' });
    expect((await authenticateRequest(await cookieFor(user.id, 1, 'another-secret-another-secret-1234'), auth)).kind).toBe('anonymous');
    expect((await authenticateRequest(await cookieFor(user.id, 0), auth)).kind).toBe('anonymous');
    expect((await authenticateRequest(new Headers(), auth)).kind).toBe('anonymous');
  });

  it('takes a Bearer token over a cookie, and never falls back when it is wrong', async () => {
    const user = await auth.users.create({ email: 'a@x.org', password: 'password-1' });
    const { token } = await auth.tokens.create(user.id, { name: 'agent' });
    const headers = await cookieFor(user.id, 1);
    headers.set('authorization', `Bearer ${token}`);
    const outcome = await authenticateRequest(headers, auth);
    expect(outcome.kind === 'ok' && outcome.auth.via).toBe('token');
    headers.set('authorization', 'Bearer em_wrong');
    expect((await authenticateRequest(headers, auth)).kind).toBe('invalid');
    headers.set('authorization', 'Token abc');
    expect((await authenticateRequest(headers, auth)).kind).toBe('invalid');
  });

  it('lets a page go by the cookie alone: a token beside it, even with a junk cookie, is nobody', async () => {
    const user = await auth.users.create({ email: 'a@x.org', password: 'password-1' });
    const other = await auth.users.create({ email: 'b@x.org', password: 'password-1' });
    const { token } = await auth.tokens.create(user.id, { name: 'agent' });
    const junk = new Headers({ authorization: `Bearer ${token}`, cookie: 'next-auth.session-token=anything' });
    expect((await authenticateRequest(junk, auth)).kind).toBe('ok');
    expect((await authenticatePageRequest(junk, auth)).kind).toBe('anonymous');
    const cli = new Headers({ authorization: `Bearer ${auth.writeCliToken()}`, cookie: 'next-auth.session-token=x' });
    expect((await authenticatePageRequest(cli, auth)).kind).toBe('anonymous');
    const both = await cookieFor(other.id, 1);
    both.set('authorization', `Bearer ${token}`);
    const page = await authenticatePageRequest(both, auth);
    expect(page.kind === 'ok' && [page.auth.via, page.auth.user.email]).toEqual(['cookie', 'b@x.org']);
  });

  it('lets the CLI token act as the first admin or as a named user', async () => {
    const user = await auth.users.create({ email: 'a@x.org', password: 'password-1' });
    const cli = auth.writeCliToken();
    const asAdmin = await authenticateRequest(new Headers({ authorization: `Bearer ${cli}` }), auth);
    expect(asAdmin.kind === 'ok' && [asAdmin.auth.via, asAdmin.auth.user.email]).toEqual(['cli', 'root@x.org']);
    const asUser = await authenticateRequest(new Headers({ authorization: `Bearer ${cli}`, [CLI_USER_HEADER]: 'A@x.org' }), auth);
    expect(asUser.kind === 'ok' && asUser.auth.user.id).toBe(user.id);
    const unknown = await authenticateRequest(new Headers({ authorization: `Bearer ${cli}`, [CLI_USER_HEADER]: 'nobody@x.org' }), auth);
    expect(unknown.kind).toBe('invalid');
  });
});
