import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ADMIN_EMAIL, BASE_URL, bearer, e2eDataDir, expect, makeProjectRepo, mutate, query, sessionCookieOf, signIn, test } from '../fixtures';

const BIN = join(process.cwd(), 'cli', 'bin.mjs');

/** The `entity-memory` command against the running test server's data directory. */
function cli(...args: string[]): { code: number | null; out: string; err: string } {
  const result = spawnSync(process.execPath, [BIN, '--data', e2eDataDir(), ...args], { encoding: 'utf8' });
  return { code: result.status, out: result.stdout.trim(), err: result.stderr.trim() };
}

test('the CLI talks to the running server: sessions list, archive, unarchive, rename, delete', async ({ adminApi }) => {
  for (const id of ['cli-one', 'cli-two']) {
    expect((await mutate(adminApi, 'session.create', { id })).status).toBe(200);
    expect((await mutate(adminApi, 'message.append', { sessionId: id, message: { role: 'user', content: `hello ${id}` } })).status).toBe(200);
  }
  const before = (await query<{ updatedAt: number }>(adminApi, 'session.get', { id: 'cli-one' })).data.updatedAt;

  expect(cli('sessions', 'list', '--scope', 'active').out).toContain('cli-one');
  expect(cli('archive', 'cli-one')).toEqual({ code: 0, out: 'Archived session cli-one', err: '' });
  expect((await query<{ archived: boolean; updatedAt: number }>(adminApi, 'session.get', { id: 'cli-one' })).data).toMatchObject({ archived: true, updatedAt: before });
  expect(cli('sessions', 'list', '--scope', 'archived').out.split('\n').map((line) => line.split('\t')[0])).toContain('cli-one');
  expect(cli('sessions', 'list').out).not.toContain('cli-one');
  expect(cli('sessions', 'unarchive', 'cli-one')).toEqual({ code: 0, out: 'Unarchived session cli-one', err: '' });
  expect(cli('archive', 'no-such-session')).toEqual({ code: 1, out: '', err: 'no session' });
  expect(cli('unarchive', 'no-such-session')).toEqual({ code: 1, out: '', err: 'no session' });

  expect(cli('sessions', 'rename', 'cli-two', 'Named', 'from', 'the', 'CLI').code).toBe(0);
  expect((await query<{ title: string }>(adminApi, 'session.get', { id: 'cli-two' })).data.title).toBe('Named from the CLI');
  expect(cli('sessions', 'delete', 'cli-two')).toMatchObject({ code: 0, out: 'Deleted session cli-two' });
  expect((await query(adminApi, 'session.get', { id: 'cli-two' })).status).toBe(404);
});

test('the CLI manages users and makes tokens the API accepts', async ({ playwright }) => {
  const email = `cli-${Date.now()}@e2e.test`;
  const added = cli('users', 'add', email, '--password', 'a long cli password');
  expect(added.code).toBe(0);
  expect(added.out).toContain(email);
  expect(cli('users', 'list').out).toContain(`${email}\tuser\tactive`);

  const token = cli('--user', email, 'tokens', 'create', 'from the cli');
  expect(token.code).toBe(0);
  const api = await playwright.request.newContext({ baseURL: `http://localhost:${process.env.E2E_PORT ?? 3100}` });
  const me = await query<{ email: string }>(api, 'user.me', undefined, bearer(token.out));
  expect(me.data.email).toBe(email);

  expect(cli('users', 'disable', email)).toMatchObject({ code: 0, out: `Disabled user ${email}` });
  expect((await query(api, 'user.me', undefined, bearer(token.out))).status).toBe(401);
  expect(cli('users', 'list').out).toContain(`${email}\tuser\tdisabled`);
  expect(cli('users', 'disable', 'nobody@e2e.test').code).toBe(1);
  expect(cli('users', 'list').out).toContain(ADMIN_EMAIL);
  await api.dispose();
});

test('the CLI over HTTP: sessions show, projects list and add, users reset-password', async ({ adminApi, playwright }) => {
  expect((await mutate(adminApi, 'session.create', { id: 'cli-show' })).status).toBe(200);
  expect((await mutate(adminApi, 'message.append', { sessionId: 'cli-show', message: { role: 'user', content: 'show me over http' } })).status).toBe(200);
  const shown = cli('sessions', 'show', 'cli-show');
  expect(shown.code).toBe(0);
  expect(shown.out).toMatch(/^ID: +cli-show$/m);
  expect(shown.out).toContain('show me over http');
  expect(cli('sessions', 'show', 'no-such-session')).toEqual({ code: 1, out: '', err: 'no session' });
  const listed = cli('sessions', 'list').out.split('\n');
  expect(listed[0]).toBe('ID\tUPDATED\tSTATUS\tPROJECT\tFLAGS\tTITLE');
  expect(listed.find((line) => line.startsWith('cli-show\t'))).toMatch(/\tidle\tHome\t/);

  const admin = (await query<{ id: string }>(adminApi, 'user.me')).data;
  const folder = makeProjectRepo(admin.id, 'cli-project');
  const added = cli('projects', 'add', folder, '--name', 'From The CLI');
  expect(added.code).toBe(0);
  expect(added.out).toMatch(/^Added project From The CLI /);
  const projects = (await query<{ name: string }[]>(adminApi, 'project.list')).data;
  expect(projects.map((project) => project.name)).toContain('From The CLI');
  expect(cli('projects', 'list').out.split('\n').map((line) => line.split('\t')[1])).toContain('From The CLI');

  const email = `cli-reset-${Date.now()}@e2e.test`;
  expect(cli('users', 'add', email, '--password', 'the first long password').code).toBe(0);
  expect(cli('users', 'reset-password', email, '--password', 'the second long password')).toMatchObject({ code: 0, err: '' });
  const api = await playwright.request.newContext({ baseURL: BASE_URL, extraHTTPHeaders: { origin: BASE_URL } });
  expect(sessionCookieOf(await signIn(api, email, 'the first long password'))).toBeUndefined();
  expect(sessionCookieOf(await signIn(api, email, 'the second long password'))).toBeDefined();
  await api.dispose();
});
