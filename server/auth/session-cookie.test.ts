import { decode, encode } from 'next-auth/jwt';
import { describe, expect, it } from 'vitest';
import { cookieReader, reissueSessionCookie } from './session-cookie';

const secret = 'unit-test-secret';

describe('reissueSessionCookie', () => {
  it('carries the caller\'s own sign-in over to the new session version, same name and claims', async () => {
    const token = await encode({ token: { uid: 'u1', sv: 3, email: 'a@x.org' }, secret });
    for (const name of ['next-auth.session-token', '__Secure-next-auth.session-token']) {
      const header = await reissueSessionCookie(cookieReader(`other=1; ${name}=${token}`), secret, { id: 'u1', oldVersion: 3, newVersion: 4 });
      expect(header).toMatch(new RegExp(`^${name.replace(/[.-]/g, '\\$&')}=[^;]+; Path=/; Expires=[^;]+; HttpOnly; SameSite=Lax`));
      expect(header!.endsWith('; Secure')).toBe(name.startsWith('__Secure-'));
      const value = header!.slice(name.length + 1, header!.indexOf(';'));
      expect(await decode({ token: value, secret })).toMatchObject({ uid: 'u1', sv: 4, email: 'a@x.org' });
    }
  });

  it('re-issues nothing for another user, another version or a forged cookie', async () => {
    const token = await encode({ token: { uid: 'u1', sv: 3 }, secret });
    const cookies = cookieReader(`next-auth.session-token=${token}`);
    expect(await reissueSessionCookie(cookies, secret, { id: 'u2', oldVersion: 3, newVersion: 4 })).toBeNull();
    expect(await reissueSessionCookie(cookies, secret, { id: 'u1', oldVersion: 2, newVersion: 4 })).toBeNull();
    expect(await reissueSessionCookie(cookies, 'another-secret', { id: 'u1', oldVersion: 3, newVersion: 4 })).toBeNull();
    expect(await reissueSessionCookie(cookieReader(null), secret, { id: 'u1', oldVersion: 3, newVersion: 4 })).toBeNull();
  });
});
