import { describe, expect, it } from 'vitest';
import { signInWithOidc } from './oidc-users.js';
import { useTempDir } from './testing/temp-dir.js';
import { UserStore } from './users.js';

const ISSUER = 'https://id.example.org';
const policy = { allowedDomains: ['example.org'], adminGroup: 'em-admins' };
const claims = (sub: string, email: string, groups: string[] = []) => ({ iss: ISSUER, sub, email, email_verified: true, groups });

describe('signInWithOidc', () => {
  const tempDir = useTempDir();

  it('creates the user at the first sign-in with the role from its groups, kept in users.json; the role follows the claim after', async () => {
    const dir = tempDir();
    const users = new UserStore(dir);
    await users.create({ email: 'root@example.org', password: 'password-0', admin: true });
    const first = await signInWithOidc(users, claims('s-ada', 'ada@example.org', ['em-admins']), policy);
    expect(first).toMatchObject({ ok: true, created: true, user: { email: 'ada@example.org', admin: true } });
    const id = first.ok ? first.user.id : '';
    const reopened = new UserStore(dir);
    expect(reopened.list().find((u) => u.id === id)?.signIn).toEqual({ kind: 'oidc', issuer: ISSUER });
    expect(reopened.list().find((u) => u.email === 'root@example.org')?.signIn).toEqual({ kind: 'password' });

    const demoted = await signInWithOidc(reopened, claims('s-ada', 'ada@example.org', ['staff']), policy);
    expect(demoted).toMatchObject({ ok: true, created: false, user: { id, admin: false } });
    expect(new UserStore(dir).get(id)?.admin).toBe(false);
    const promoted = await signInWithOidc(reopened, claims('s-ada', 'ada@example.org', ['em-admins']), policy);
    expect(promoted).toMatchObject({ ok: true, user: { id, admin: true } });
  });

  it('never signs in with a password: its hash is of bytes nobody knows', async () => {
    const users = new UserStore(tempDir());
    await users.create({ email: 'root@example.org', password: 'password-0', admin: true });
    const result = await signInWithOidc(users, claims('s-bo', 'bo@example.org'), policy);
    expect(result).toMatchObject({ ok: true, user: { admin: false } });
    expect(await users.verifyCredentials('bo@example.org', '')).toBeNull();
    expect(await users.verifyCredentials('bo@example.org', 's-bo')).toBeNull();
  });

  it('links by subject, not by email: a password account or another subject with the email refuses the sign-in, writing nothing', async () => {
    const dir = tempDir();
    const users = new UserStore(dir);
    await users.create({ email: 'root@example.org', password: 'password-0', admin: true });
    expect(await signInWithOidc(users, claims('s-root', 'root@example.org', ['em-admins']), policy)).toEqual({ ok: false, reason: 'email-taken', email: 'root@example.org' });
    await signInWithOidc(users, claims('s-cy', 'cy@example.org'), policy);
    expect(await signInWithOidc(users, claims('s-other', 'cy@example.org'), policy)).toMatchObject({ ok: false, reason: 'email-taken' });
    // The same subject from another issuer is another person.
    expect(await signInWithOidc(users, { ...claims('s-cy', 'cy@example.org'), iss: 'https://other.example' }, policy)).toMatchObject({ ok: false, reason: 'email-taken' });
    expect(new UserStore(dir).list().map((u) => u.email)).toEqual(['root@example.org', 'cy@example.org']);
    expect(new UserStore(dir).findByEmail('root@example.org')?.identity).toBeUndefined();
  });

  it('refuses a domain not allowed and a disabled user, creating nobody', async () => {
    const dir = tempDir();
    const users = new UserStore(dir);
    await users.create({ email: 'root@example.org', password: 'password-0', admin: true });
    expect(await signInWithOidc(users, claims('s-eve', 'eve@elsewhere.test', ['em-admins']), policy)).toMatchObject({ ok: false, reason: 'domain-not-allowed' });
    const made = await signInWithOidc(users, claims('s-dee', 'dee@example.org'), policy);
    await users.setDisabled(made.ok ? made.user.id : '', true);
    expect(await signInWithOidc(users, claims('s-dee', 'dee@example.org'), policy)).toMatchObject({ ok: false, reason: 'disabled' });
    expect(new UserStore(dir).list().map((u) => u.email)).toEqual(['root@example.org', 'dee@example.org']);
  });

  it('on a server with nobody yet, only an admin-group member may be the first user', async () => {
    const users = new UserStore(tempDir());
    expect(await signInWithOidc(users, claims('s-1', 'one@example.org'), policy)).toMatchObject({ ok: false, reason: 'no-admin-yet' });
    expect(users.hasUsers()).toBe(false);
    expect(await signInWithOidc(users, claims('s-2', 'two@example.org', ['em-admins']), policy)).toMatchObject({ ok: true, user: { admin: true } });
  });

  it('without an admin group the role is left as it is', async () => {
    const users = new UserStore(tempDir());
    await users.create({ email: 'root@example.org', password: 'password-0', admin: true });
    const made = await signInWithOidc(users, claims('s-fi', 'fi@example.org', ['em-admins']), { allowedDomains: null, adminGroup: null });
    expect(made).toMatchObject({ ok: true, user: { admin: false } });
  });
});
