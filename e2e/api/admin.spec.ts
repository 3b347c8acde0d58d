import {
  authStateSnapshot,
  createToken,
  createUser,
  expect,
  bearer,
  mutate,
  newApiContext,
  query,
  sessionCookieOf,
  signIn,
  signedInContext,
  test,
  uniqueEmail,
} from '../fixtures';

interface User {
  id: string;
  email: string;
  admin: boolean;
  disabled: boolean;
}

test('an admin creates and lists users; the new user can sign in', async ({ adminApi }) => {
  const email = uniqueEmail('created');
  const created = await mutate<User>(adminApi, 'admin.createUser', { email, password: 'password-created' });
  expect(created.status).toBe(200);
  expect(created.data).toMatchObject({ email, admin: false, disabled: false });
  // No hash nor the password itself (the view says how the user signs in: `signIn: {kind: 'password'}`).
  expect(JSON.stringify(created.body)).not.toMatch(/passwordHash|password_hash|scrypt|password-created/i);
  const list = await query<User[]>(adminApi, 'admin.listUsers');
  expect(list.data.map((u) => u.email)).toContain(email);
  expect(JSON.stringify(list.body)).not.toMatch(/passwordHash|scrypt/);
  const api = await signedInContext(email, 'password-created');
  expect((await query<{ email: string }>(api, 'user.me')).data.email).toBe(email);
  await api.dispose();
});

test('a duplicate email is 409 and writes nothing', async ({ adminApi, user }) => {
  const before = authStateSnapshot();
  const duplicate = await mutate(adminApi, 'admin.createUser', { email: user.email.toUpperCase(), password: 'password-1' });
  expect(duplicate.status).toBe(409);
  expect(duplicate.body.error?.message).toMatch(/already exists/);
  expect(authStateSnapshot()).toBe(before);
});

test('a non-admin gets 403 from every admin procedure', async ({ user }) => {
  expect((await query(user.api, 'admin.listUsers')).status).toBe(403);
  expect((await mutate(user.api, 'admin.setDisabled', { userId: user.id, disabled: true })).status).toBe(403);
  expect((await mutate(user.api, 'admin.createUser', { email: uniqueEmail(), password: 'password-1', admin: true })).status).toBe(403);
});

test("disabling a user ends their open sign-in and their tokens at once", async ({ adminApi, user }) => {
  const { token } = await createToken(user.api);
  const tokenApi = await newApiContext();
  expect((await query(user.api, 'user.me')).status).toBe(200);
  expect((await query(tokenApi, 'user.me', undefined, bearer(token))).status).toBe(200);

  const disabled = await mutate<User>(adminApi, 'admin.setDisabled', { userId: user.id, disabled: true });
  expect(disabled.status).toBe(200);
  expect(disabled.data.disabled).toBe(true);

  expect((await query(user.api, 'user.me')).status).toBe(401);
  expect((await query(tokenApi, 'user.me', undefined, bearer(token))).status).toBe(401);
  const page = await user.api.get('/settings', { maxRedirects: 0 });
  expect(page.status()).toBe(307);
  expect(page.headers().location).toMatch(/\/signin/);
  const again = await signIn(await newApiContext(), user.email, user.password, { 'x-forwarded-for': '10.3.0.1' });
  expect(sessionCookieOf(again)).toBeUndefined();

  // Enabling again lets them sign in anew, but the old cookie stays dead.
  expect((await mutate(adminApi, 'admin.setDisabled', { userId: user.id, disabled: false })).status).toBe(200);
  expect((await query(user.api, 'user.me')).status).toBe(401);
  expect((await query(tokenApi, 'user.me', undefined, bearer(token))).status).toBe(200);
  const fresh = await signedInContext(user.email, user.password);
  expect((await query(fresh, 'user.me')).status).toBe(200);
  await Promise.all([tokenApi.dispose(), fresh.dispose()]);
});

test('a password reset ends open sign-ins; only the new password works', async ({ adminApi, user }) => {
  const reset = await mutate(adminApi, 'admin.resetPassword', { userId: user.id, password: 'password-after-reset' });
  expect(reset.status).toBe(200);
  expect((await query(user.api, 'user.me')).status).toBe(401);
  const old = await signIn(await newApiContext(), user.email, user.password, { 'x-forwarded-for': '10.4.0.1' });
  expect(sessionCookieOf(old)).toBeUndefined();
  const api = await signedInContext(user.email, 'password-after-reset');
  expect((await query(api, 'user.me')).status).toBe(200);
  await api.dispose();
});

test('an unknown user id is 404', async ({ adminApi }) => {
  const missing = await mutate(adminApi, 'admin.setDisabled', { userId: 'ffffffffffffffff', disabled: true });
  expect(missing.status).toBe(404);
  expect((await mutate(adminApi, 'admin.resetPassword', { userId: 'ffffffffffffffff', password: 'password-1' })).status).toBe(404);
});

test('the last enabled admin cannot be disabled', async ({ adminApi }) => {
  const me = await query<{ id: string }>(adminApi, 'user.me');
  const refused = await mutate(adminApi, 'admin.setDisabled', { userId: me.data.id, disabled: true });
  expect(refused.status).toBe(409);
  expect((await query(adminApi, 'user.me')).status).toBe(200);
});

test('sign-up works only while the admin has opened it', async ({ adminApi }) => {
  const anonymous = await newApiContext();
  const email = uniqueEmail('signup');
  try {
    expect((await mutate(adminApi, 'admin.setSignup', { open: false })).status).toBe(200);
    const closed = await mutate(anonymous, 'auth.signup', { email, password: 'password-1' });
    expect(closed.status).toBe(403);
    expect((await query<{ signupOpen: boolean }>(anonymous, 'auth.status')).data.signupOpen).toBe(false);

    expect((await mutate(adminApi, 'admin.setSignup', { open: true })).data).toEqual({ open: true });
    expect((await query<{ signupOpen: boolean }>(anonymous, 'auth.status')).data.signupOpen).toBe(true);
    const open = await mutate<{ email: string }>(anonymous, 'auth.signup', { email, password: 'password-1' });
    expect(open.status).toBe(200);
    const api = await signedInContext(email, 'password-1');
    expect((await query<{ admin: boolean }>(api, 'user.me')).data.admin).toBe(false);
    await api.dispose();
  } finally {
    await mutate(adminApi, 'admin.setSignup', { open: false });
    await anonymous.dispose();
  }
});

test('an admin created with admin:true can administer', async ({ adminApi }) => {
  const second = await createUser(adminApi, { admin: true, label: 'second-admin' });
  expect((await query(second.api, 'admin.listUsers')).status).toBe(200);
});
