import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, type APIRequestContext, type Page } from '@playwright/test';
import { hostileMessages } from '../fixtures/hostile-messages';
import {
  cookieHeaderOf,
  expect,
  freshDataDir,
  mutate,
  openEvents,
  PORT,
  query,
  sessionCookieOf,
  signIn,
  startServer,
  test,
  type Runtime,
  type ServerProcess,
  type SessionDetail,
  type SessionRow,
} from '../fixtures';

const ADMIN_EMAIL = 'runtime-admin@e2e.test';
const ADMIN_PASSWORD = 'runtime-admin-password';
const NAMES: Record<Runtime, string> = { node: 'Node', bun: 'Bun', deno: 'Deno' };
/** The pinned version in package.json: the server must say it runs on exactly that one. */
const PINNED = JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')).devDependencies as Record<string, string>;

/** Signs in through the sign-in page, as a person would, and lands on `/`. */
async function signInThroughPage(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await expect(page).toHaveURL(`${url}/signin`);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${url}/`);
}

async function signedInApi(url: string): Promise<APIRequestContext> {
  const api = await request.newContext({ baseURL: url, extraHTTPHeaders: { origin: url } });
  expect(sessionCookieOf(await signIn(api, ADMIN_EMAIL, ADMIN_PASSWORD))).toBeDefined();
  return api;
}

/**
 * The built app served by Bun or Deno (`npm run start:bun` / `start:deno`, as the README says), on
 * its own port and data directory with an admin from the environment, driven through HTTP and
 * Debian's Chromium. Each test stands alone: after a failure Playwright starts a new worker, and
 * with it a new server.
 */
export function runtimeSmoke(runtime: Exclude<Runtime, 'node'>, offset: number): void {
  const port = PORT + offset;
  const url = `http://localhost:${port}`;
  test.describe(`served by ${NAMES[runtime]}`, () => {
    let server: ServerProcess;
    let dataDir: string;

    test.beforeAll(async () => {
      test.setTimeout(120_000);
      dataDir = freshDataDir();
      server = startServer({ port, dataDir, runtime, viaNpm: true, env: { OPENPROGRAM_ADMIN_EMAIL: ADMIN_EMAIL, OPENPROGRAM_ADMIN_PASSWORD: ADMIN_PASSWORD } });
      await server.waitForOutput(/Ready on \S+ \((\w+) (\S+)\)/, 90_000);
      await expect.poll(async () => (await fetch(`${url}/api/health`).catch(() => null))?.status, { timeout: 30_000 }).toBe(200);
    });

    test.afterAll(async () => {
      await server?.stop('SIGTERM');
    });

    test(`the server runs on ${NAMES[runtime]} ${PINNED[runtime]} and answers /api/health`, async () => {
      const [, name, version] = /Ready on \S+ \((\w+) (\S+)\)/.exec(server.output())!;
      expect({ name, version }).toEqual({ name: NAMES[runtime], version: PINNED[runtime] });
      const health = await fetch(`${url}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ ok: true });
      expect(server.output()).toContain(`Created the admin account ${ADMIN_EMAIL} from OPENPROGRAM_ADMIN_EMAIL`);
    });

    test('signs in through the sign-in page, renders /, and an EventSource in the tab sees a rename', async ({ browser }) => {
      const context = await browser.newContext({ baseURL: url });
      try {
        const page = await context.newPage();
        await signInThroughPage(page, url);
        const home = await page.reload();
        expect(home?.status()).toBe(200);
        await expect(page).toHaveURL(`${url}/`);
        const me = await query<{ email: string; admin: boolean; via: string }>(context.request, 'user.me');
        expect(me.data).toMatchObject({ email: ADMIN_EMAIL, admin: true, via: 'cookie' });

        // The tab's own EventSource (the browser's SSE client, not ours) sees a rename made elsewhere.
        await page.evaluate(
          () =>
            new Promise<void>((resolve) => {
              const source = new EventSource('/api/events');
              const seen: unknown[] = [];
              Object.assign(window, { seenUpdates: seen });
              source.addEventListener('session_updated', (event) => seen.push(JSON.parse((event as MessageEvent<string>).data)));
              source.onopen = () => resolve();
            }),
        );
        const id = `tab-${runtime}`;
        expect((await mutate(context.request, 'session.create', { id, title: 'In a tab' }, { origin: url })).status).toBe(200);
        expect((await mutate(context.request, 'session.update', { id, title: 'Renamed elsewhere' }, { origin: url })).status).toBe(200);
        await expect
          .poll(() => page.evaluate(() => (window as unknown as { seenUpdates: unknown[] }).seenUpdates), { timeout: 5_000 })
          .toContainEqual({ id, title: 'Renamed elsewhere' });
      } finally {
        await context.close();
      }
    });

    test('tRPC over HTTP; the event stream delivers a rename as session_updated', async () => {
      const api = await signedInApi(url);
      const stream = await openEvents({ cookie: await cookieHeaderOf(api) }, undefined, url);
      try {
        expect(stream.status).toBe(200);
        await stream.waitForComment('connected');
        const created = await mutate<SessionRow>(api, 'session.create', { id: `sse-${runtime}`, title: 'Before' });
        expect(created.status).toBe(200);
        expect(created.data).toMatchObject({ id: `sse-${runtime}`, title: 'Before' });
        expect((await mutate(api, 'session.update', { id: `sse-${runtime}`, title: 'After' })).status).toBe(200);
        const renamed = await stream.waitFor((e) => e.type === 'session_updated' && (e.data as { title?: string }).title === 'After');
        expect(renamed.data).toEqual({ id: `sse-${runtime}`, title: 'After' });
        expect((await query<SessionDetail>(api, 'session.get', { id: `sse-${runtime}` })).data).toMatchObject({ title: 'After', userTitled: true });
      } finally {
        stream.close();
        await api.dispose();
      }
    });

    test('a session page renders Markdown and code in the render workers; a stuck render falls back to text', async () => {
      test.setTimeout(60_000);
      const api = await signedInApi(url);
      try {
        const id = `render-${runtime}`;
        expect((await mutate(api, 'session.create', { id, title: 'Rendered' })).status).toBe(200);
        // The hostile fixture's brackets (90 KB): 40 KB rendered inside the deadline on a quiet machine.
        const { brackets, deepQuotes } = hostileMessages(runtime);
        const messages = ['Some **bold** text\n\n```ts\nconst answer = 42;\n```', brackets, deepQuotes];
        for (const content of messages) expect((await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content } })).status).toBe(200);
        const page = await api.get(`/sessions/${id}`, { headers: { accept: 'text/html' } });
        expect(page.status()).toBe(200);
        const html = await page.text();
        expect(html).toContain('<strong>bold</strong>');
        expect(html).toMatch(/<pre class="shiki[^"]*"[^>]*data-language="typescript"/);
        // The worker rendering the brackets is stopped at the deadline; the quotes are refused as too deep.
        expect(html).toContain('Shown as plain text: took too long to format.');
        expect(html).toContain('Shown as plain text: nested too deeply to format.');
      } finally {
        await api.dispose();
      }
    });

    test('sign in, see the sidebar, rename in a second tab: the first tab shows it without a reload', async ({ browser }) => {
      const context = await browser.newContext({ baseURL: url });
      try {
        const first = await context.newPage();
        // The tab's event stream is open before the session is made, or the create could fall
        // between the server render and the stream's connect.
        const streamOpen = first.waitForResponse((response) => new URL(response.url()).pathname === '/api/events' && response.status() === 200);
        await signInThroughPage(first, url);
        const sidebar = first.getByRole('navigation', { name: 'Sessions' });
        await expect(sidebar).toBeVisible();
        await streamOpen;

        const title = `Served by ${NAMES[runtime]}`;
        const created = await mutate<SessionRow>(context.request, 'session.create', { id: `tabs-${runtime}`, title }, { origin: url });
        expect(created.status).toBe(200);
        await expect(sidebar.getByRole('link', { name: title, exact: true })).toBeVisible();

        const second = await context.newPage();
        await second.goto(`${url}/`);
        const otherSidebar = second.getByRole('navigation', { name: 'Sessions' });
        // The "⋯" button may show on hover only, as a pointer user finds it.
        await otherSidebar.getByRole('link', { name: title, exact: true }).hover();
        await otherSidebar.getByRole('button', { name: `Options for ${title}`, exact: true }).click();
        await second.getByRole('menuitem', { name: 'Rename', exact: true }).click();
        const box = second.getByRole('textbox', { name: 'Session title' });
        const renamed = `Renamed under ${NAMES[runtime]}`;
        await box.fill(renamed);
        await box.press('Enter');
        await expect(otherSidebar.getByRole('link', { name: renamed, exact: true })).toBeVisible();

        // The first tab was never reloaded: the event stream brought the new title.
        await expect(sidebar.getByRole('link', { name: renamed, exact: true })).toBeVisible({ timeout: 5_000 });
        await expect(sidebar.getByRole('link', { name: title, exact: true })).toHaveCount(0);
      } finally {
        await context.close();
      }
    });

    test(`full-text search runs on ${runtime === 'bun' ? 'bun:sqlite' : 'node:sqlite'}: a Japanese word, a two-character Chinese word`, async () => {
      const api = await signedInApi(url);
      try {
        const id = `search-${runtime}`;
        expect((await mutate(api, 'session.create', { id, title: 'CJK' })).status).toBe(200);
        const ja = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'user', content: '日本語のエラーメッセージを直す' } });
        const zh = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: '已经修好了数据库备份' } });
        type Page = { hits: Array<{ sessionId: string; messageId: string; snippet: Array<{ text: string; match: boolean }> }> };
        const found = await query<Page>(api, 'session.search', { q: 'エラー' });
        expect(found.status).toBe(200);
        expect(found.data.hits.map((hit) => [hit.sessionId, hit.messageId])).toEqual([[id, ja.data.id]]);
        expect(found.data.hits[0]!.snippet.filter((segment) => segment.match).map((segment) => segment.text)).toEqual(['エラー']);
        const two = await query<Page>(api, 'session.search', { q: '备份' });
        expect(two.data.hits.map((hit) => hit.messageId)).toEqual([zh.data.id]);
        const me = await query<{ id: string }>(api, 'user.me');
        expect(existsSync(join(dataDir, 'users', me.data.id, 'search.sqlite'))).toBe(true);
      } finally {
        await api.dispose();
      }
    });

    test('SIGTERM flushes the registry, releases the data-directory lock and exits 0', async () => {
      const api = await signedInApi(url);
      const me = await query<{ id: string }>(api, 'user.me');
      await mutate(api, 'session.create', { id: `flush-${runtime}`, title: 'Kept' });
      expect((await mutate(api, 'session.update', { id: `flush-${runtime}`, title: 'Kept after SIGTERM' })).status).toBe(200);
      await api.dispose();
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(true);

      expect(await server.stop('SIGTERM')).toBe(0);
      expect(server.output()).toMatch(/SIGTERM: registries flushed, exiting/);
      expect(existsSync(join(dataDir, 'server.lock'))).toBe(false);
      const sessions = join(dataDir, 'users', me.data.id, 'sessions');
      expect(readdirSync(sessions)).toContain(`flush-${runtime}`);
      const index = JSON.parse(readFileSync(join(sessions, 'index.json'), 'utf8')) as Record<string, { title: string }>;
      expect(index[`flush-${runtime}`]?.title).toBe('Kept after SIGTERM');
    });
  });
}
