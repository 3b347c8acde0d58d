import { request, type APIRequestContext, type APIResponse } from '@playwright/test';
import {
  BASE_URL,
  PORT,
  cookieHeaderOf,
  createUser,
  expect,
  freshDataDir,
  mutate,
  openEvents,
  query,
  signedInContext,
  startServer,
  test,
  type ServerProcess,
} from '../fixtures';

/** Issue 7's probe, sign-in side: each defect it found, over HTTP. */

const ADMIN = { email: 'probe-admin@e2e.test', password: 'probe-admin-password' };

/** A server of its own (its own data directory, so its failure counts touch nobody else's). */
async function ownServer(port: number, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = startServer({
    port,
    dataDir: freshDataDir(),
    env: { OPENPROGRAM_ADMIN_EMAIL: ADMIN.email, OPENPROGRAM_ADMIN_PASSWORD: ADMIN.password, ...env },
  });
  await server.waitForOutput(/Ready/, 60_000);
  return server;
}

function contextFor(server: ServerProcess): Promise<APIRequestContext> {
  return request.newContext({ baseURL: server.url, extraHTTPHeaders: { origin: server.url } });
}

/** next-auth's JSON flow, as the sign-in form uses it (`signIn(..., {redirect: false})`). */
async function signInJson(api: APIRequestContext, email: string, password: string, headers: Record<string, string> = {}): Promise<APIResponse> {
  const { csrfToken } = (await (await api.get('/api/auth/csrf')).json()) as { csrfToken: string };
  return api.post('/api/auth/callback/credentials', { form: { email, password, csrfToken, json: 'true' }, headers, maxRedirects: 0 });
}

async function newUser(admin: APIRequestContext, email: string, password: string): Promise<void> {
  const created = await mutate(admin, 'admin.createUser', { email, password });
  if (created.status !== 200) throw new Error(`admin.createUser failed: ${JSON.stringify(created.body)}`);
}

test('4. a password change ends the other sign-ins and keeps this one', async ({ adminApi }) => {
  const user = await createUser(adminApi, { label: 'changer' });
  const other = await signedInContext(user.email, user.password);
  expect((await query(other, 'user.me')).status).toBe(200);
  const changed = await mutate(user.api, 'user.changePassword', { current: user.password, next: 'a-brand-new-password' });
  expect(changed.status).toBe(200);
  expect((await query(user.api, 'user.me')).status).toBe(200);
  expect((await query(other, 'user.me')).status).toBe(401);
  await other.dispose();
});

test('7. a disabled user\'s event stream closes at once, long before its next heartbeat', async ({ adminApi }) => {
  const user = await createUser(adminApi, { label: 'streamer' });
  const stream = await openEvents({ cookie: await cookieHeaderOf(user.api) });
  expect(stream.status).toBe(200);
  await stream.waitForComment('connected');
  let ended = false;
  void stream.ended.then(() => (ended = true));
  expect((await mutate(adminApi, 'admin.setDisabled', { userId: user.id, disabled: true })).status).toBe(200);
  // The heartbeat (the old way a stream learnt of it) comes every 15 s; the end must come first.
  await Promise.race([stream.ended, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  expect(ended).toBe(true);
  expect(stream.comments).not.toContain('keepalive');
  stream.close();
});

test('8. origin: an evil Origin with X-Forwarded-Host, or our host on another scheme, is refused', async ({ user }) => {
  const forged = await mutate(user.api, 'session.create', { title: 'x' }, { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' });
  expect(forged.status).toBe(403);
  const otherScheme = await mutate(user.api, 'session.create', { title: 'x' }, { origin: BASE_URL.replace('http://', 'https://') });
  expect(otherScheme.status).toBe(403);
  expect((await mutate(user.api, 'session.create', { title: 'x' })).status).toBe(200);
});

test.describe('sign-in limits on servers of their own', () => {
  test.describe.configure({ timeout: 180_000 });

  test('8. behind a trusted proxy: the guessing address is locked (429), the owner elsewhere gets in', async () => {
    const server = await ownServer(PORT + 10, { OPENPROGRAM_TRUST_PROXY: '1' });
    try {
      const api = await contextFor(server);
      await signInJson(api, ADMIN.email, ADMIN.password);
      await newUser(api, 'victim@e2e.test', 'the-victims-password');
      const attacker = { 'x-forwarded-for': '198.51.100.66' };
      for (let i = 0; i < 10; i++) expect((await signInJson(api, 'victim@e2e.test', `guess-${i}`, attacker)).status()).toBe(401);
      const locked = await signInJson(api, 'victim@e2e.test', 'the-victims-password', attacker);
      expect(locked.status()).toBe(429);
      expect(Number(locked.headers()['retry-after'])).toBeGreaterThan(0);
      expect(decodeURIComponent(((await locked.json()) as { url: string }).url)).toMatch(/Too many failed sign-ins/);

      // The owner, from another address: at most a short wait, then in.
      const owner = { 'x-forwarded-for': '203.0.113.10' };
      let answer = await signInJson(api, 'victim@e2e.test', 'the-victims-password', owner);
      if (answer.status() === 429) {
        const wait = Number(answer.headers()['retry-after']);
        expect(wait).toBeLessThanOrEqual(5);
        await new Promise((resolve) => setTimeout(resolve, wait * 1000 + 200));
        answer = await signInJson(api, 'victim@e2e.test', 'the-victims-password', owner);
      }
      expect(answer.status()).toBe(200);
      await api.dispose();
    } finally {
      await server.stop();
    }
  });

  test('8 and 4. without OPENPROGRAM_TRUST_PROXY, X-Forwarded-For is ignored; wrong current passwords count too', async () => {
    const server = await ownServer(PORT + 11);
    try {
      const api = await contextFor(server);
      await signInJson(api, ADMIN.email, ADMIN.password);
      await newUser(api, 'spoofer@e2e.test', 'the-spoofers-password');
      // Ten guesses, each claiming another address: all from the one socket address.
      for (let i = 0; i < 10; i++) {
        expect((await signInJson(api, 'spoofer@e2e.test', `guess-${i}`, { 'x-forwarded-for': `192.0.2.${i}` })).status()).toBe(401);
      }
      expect((await signInJson(api, 'spoofer@e2e.test', 'the-spoofers-password', { 'x-forwarded-for': '192.0.2.99' })).status()).toBe(429);

      // The admin's own password change: wrong current passwords are failed sign-ins.
      const answers: number[] = [];
      for (let i = 0; i < 12; i++) answers.push((await mutate(api, 'user.changePassword', { current: `wrong-${i}`, next: 'password-next' })).status);
      expect(answers.slice(0, 10)).toEqual(Array(10).fill(400));
      expect(answers.slice(10)).toEqual([429, 429]);
      expect((await mutate(api, 'user.changePassword', { current: ADMIN.password, next: 'password-next' })).status).toBe(429);
      expect((await query(api, 'user.me')).status).toBe(200);
      await api.dispose();
    } finally {
      await server.stop();
    }
  });
});
