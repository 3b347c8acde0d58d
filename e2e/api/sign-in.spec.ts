import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createUser,
  expect,
  mutate,
  newApiContext,
  query,
  sessionCookieOf,
  signIn,
  test,
} from '../fixtures';

test('sign-in with the credentials flow sets an httpOnly, SameSite=Lax session cookie', async () => {
  const api = await newApiContext();
  const response = await signIn(api, ADMIN_EMAIL, ADMIN_PASSWORD);
  expect(response.status()).toBe(302);
  const cookie = sessionCookieOf(response);
  expect(cookie).toMatch(/^next-auth\.session-token=/);
  expect(cookie).toMatch(/; HttpOnly/i);
  expect(cookie).toMatch(/; SameSite=Lax/i);
  expect(cookie).toMatch(/; Path=\//i);
  expect(cookie).not.toMatch(/; Secure/i); // served over plain http here
  const me = await query<{ email: string; admin: boolean; via: string }>(api, 'user.me');
  expect(me.status).toBe(200);
  expect(me.data).toMatchObject({ email: ADMIN_EMAIL, admin: true, via: 'cookie' });
  await api.dispose();
});

test('behind an https proxy the session cookie is Secure (and __Secure- prefixed)', async () => {
  const api = await newApiContext();
  const response = await signIn(api, ADMIN_EMAIL, ADMIN_PASSWORD, { 'x-forwarded-proto': 'https' });
  const cookie = sessionCookieOf(response);
  expect(cookie).toMatch(/^__Secure-next-auth\.session-token=/);
  expect(cookie).toMatch(/; Secure/i);
  expect(cookie).toMatch(/; HttpOnly/i);
  expect(cookie).toMatch(/; SameSite=Lax/i);
  await api.dispose();
});

test('a wrong password sets no session and sends the browser back to /signin with an error', async () => {
  const api = await newApiContext();
  const response = await signIn(api, ADMIN_EMAIL, 'not-the-password', { 'x-forwarded-for': '10.1.0.1' });
  expect(response.status()).toBe(302);
  expect(sessionCookieOf(response)).toBeUndefined();
  expect(response.headers().location).toMatch(/error=CredentialsSignin/);
  const page = await api.get(response.headers().location!);
  expect(page.url()).toMatch(/\/signin\?.*error=CredentialsSignin/);
  expect(await page.text()).toContain('Wrong email or password');
  expect((await query(api, 'user.me')).status).toBe(401);
  await api.dispose();
});

test('signed-out page requests go to /signin; API routes answer 401 JSON', async ({ request }) => {
  for (const path of ['/', '/settings', '/admin']) {
    const response = await request.get(path, { maxRedirects: 0 });
    expect(response.status(), path).toBe(307);
    expect(response.headers().location, path).toMatch(/\/signin/);
  }
  const events = await request.get('/api/events');
  expect(events.status()).toBe(401);
  expect(await events.json()).toEqual({ error: expect.any(String) });
  const trpc = await request.get('/api/trpc/token.list');
  expect(trpc.status()).toBe(401);
  expect((await trpc.json()).error.data.code).toBe('UNAUTHORIZED');
});

test('a forged or foreign session cookie is not a sign-in', async () => {
  const api = await newApiContext({ cookie: 'next-auth.session-token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..forged.forged.forged' });
  expect((await query(api, 'user.me')).status).toBe(401);
  const page = await api.get('/settings', { maxRedirects: 0 });
  expect(page.status()).toBe(307); // the (app) layout validates the cookie, not just its presence
  expect(page.headers().location).toMatch(/\/signin/);
  await api.dispose();
});

test('failed sign-ins are rate limited per email: the right password is refused too', async ({ adminApi }) => {
  const victim = await createUser(adminApi, { label: 'ratelimit' });
  // A client address of its own, so the per-address count of other tests is not touched.
  const headers = { 'x-forwarded-for': '10.2.0.1' };
  const api = await newApiContext();
  for (let i = 0; i < 10; i++) {
    const failed = await signIn(api, victim.email, 'wrong-password', headers);
    expect(sessionCookieOf(failed)).toBeUndefined();
    expect(failed.headers().location).toMatch(/error=CredentialsSignin/);
  }
  const refused = await signIn(api, victim.email, victim.password, headers);
  expect(sessionCookieOf(refused)).toBeUndefined();
  expect(decodeURIComponent(refused.headers().location ?? '')).toMatch(/Too many failed sign-ins/);
  // A claimed other address does not help: this server trusts no proxy, so it is the same socket.
  const elsewhere = await signIn(api, victim.email, victim.password, { 'x-forwarded-for': '10.2.0.2' });
  expect(sessionCookieOf(elsewhere)).toBeUndefined();
  // Another account is not affected.
  const other = await createUser(adminApi, { label: 'unaffected' });
  expect(sessionCookieOf(await signIn(api, other.email, other.password, headers))).toBeDefined();
  await api.dispose();
});

test('first-run setup is closed once an admin exists', async () => {
  const api = await newApiContext();
  const status = await query<{ needsSetup: boolean }>(api, 'auth.status');
  expect(status.data.needsSetup).toBe(false);
  const setup = await mutate(api, 'auth.setup', { code: 'AAAA-BBBB-CCCC', email: 'late@e2e.test', password: 'password-1' });
  expect(setup.status).toBe(409);
  await api.dispose();
});

test('the sign-in page never redirects a signed-in user off this origin, nor answers 500 (issue 23 item 5)', async () => {
  const api = await newApiContext();
  await signIn(api, ADMIN_EMAIL, ADMIN_PASSWORD);
  for (const callbackUrl of ['/%09/evil.example', '/%0d/evil.example', '/%0a/evil.example', '/%5cevil.example', '/.//evil.example', 'https://evil.example/']) {
    const response = await api.get(`/signin?callbackUrl=${callbackUrl}`, { maxRedirects: 0 });
    expect(response.status(), callbackUrl).toBe(307);
    expect(response.headers()['location'], callbackUrl).toBe('/');
  }
  const kept = await api.get('/signin?callbackUrl=%2Fsettings%3Ftab%3Dtokens', { maxRedirects: 0 });
  expect(kept.headers()['location']).toBe('/settings?tab=tokens');
  await api.dispose();
});
