import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from '@playwright/test';
import { BASE_URL, PORT, e2eDataDir, expect, freshDataDir, mutate, query, sessionCookieOf, signIn, startServer, test, bearer } from '../fixtures';

// Ports of their own, beside the main test server's (E2E_PORT).
const SECOND_PORT = PORT + 1;
const SETUP_PORT = PORT + 2;

test('a second server on the same data directory refuses to start, saying why', async () => {
  const second = startServer({ port: SECOND_PORT, dataDir: e2eDataDir() });
  expect(await second.exited).toBe(1);
  expect(second.output()).toMatch(new RegExp(`Another Entity Memory server \\(pid \\d+, ${BASE_URL}\\) is using the data directory`));
});

test('the CLI token file is 0600 and lets the CLI act as the admin', async () => {
  const path = join(e2eDataDir(), 'auth', 'cli-token');
  expect(statSync(path).mode & 0o777).toBe(0o600);
  expect(statSync(join(e2eDataDir(), 'auth')).mode & 0o777).toBe(0o700);
  expect(statSync(e2eDataDir()).mode & 0o777).toBe(0o700);
  const token = readFileSync(path, 'utf8').trim();
  const api = await request.newContext({ baseURL: BASE_URL });
  const me = await query<{ admin: boolean; via: string }>(api, 'user.me', undefined, bearer(token));
  expect(me.data).toMatchObject({ admin: true, via: 'cli' });
  expect((await query(api, 'admin.listUsers', undefined, bearer(token))).status).toBe(200);
  await api.dispose();
});

test('first run: the setup code from the log creates the admin, once; SIGTERM releases the lock; a killed server does not block the next', async () => {
  test.setTimeout(120_000);
  const dataDir = freshDataDir();
  let server = startServer({ port: SETUP_PORT, dataDir });
  try {
    const [, code] = await server.waitForOutput(/setup code: (\S+)/);
    await server.waitForOutput(/Ready/);
    const api = await request.newContext({ baseURL: server.url, extraHTTPHeaders: { origin: server.url } });
    expect((await query<{ needsSetup: boolean }>(api, 'auth.status')).data.needsSetup).toBe(true);
    const page = await api.get('/signin');
    expect(await page.text()).toContain('Create the admin account');

    const wrong = await mutate(api, 'auth.setup', { code: 'AAAA-BBBB-CCCC', email: 'first@e2e.test', password: 'password-first' });
    expect(wrong.status).toBe(403);
    const right = await mutate(api, 'auth.setup', { code: code!, email: 'first@e2e.test', password: 'password-first' });
    expect(right.status).toBe(200);
    const again = await mutate(api, 'auth.setup', { code: code!, email: 'second@e2e.test', password: 'password-first' });
    expect(again.status).toBe(409);
    const signedIn = await signIn(api, 'first@e2e.test', 'password-first');
    expect(sessionCookieOf(signedIn)).toBeDefined();
    expect((await query<{ admin: boolean }>(api, 'user.me')).data.admin).toBe(true);
    await api.dispose();

    expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(server.output()).toMatch(/SIGTERM: registries flushed/);
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);

    // A SIGKILLed server leaves its lock behind; the next start takes it over.
    server = startServer({ port: SETUP_PORT, dataDir });
    await server.waitForOutput(/Ready/);
    await expect.poll(() => existsSync(join(dataDir, 'server.lock'))).toBe(true);
    await server.stop('SIGKILL');
    expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);
    server = startServer({ port: SETUP_PORT, dataDir });
    await server.waitForOutput(/Ready on/);
    expect(server.output()).not.toMatch(/setup code/); // the admin exists now
    const health = await fetch(`${server.url}/api/health`);
    expect(health.status).toBe(200);
  } finally {
    await server.stop('SIGTERM');
  }
});
