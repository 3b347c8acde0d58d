import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type APIRequestContext, type Download, type Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { bearer, captureViews, createToken, createUser, expect, freshDataDir, mutate, newApiContext, query, signInBrowser, startServerSignedIn, test, type ServerProcess } from '../fixtures';
import { SessionPage } from '../pages/session';

type Api = Parameters<typeof mutate>[0];

/** Two turns: a question, a tool call and its result, an answer; then a follow-up. */
async function seed(api: Api, id: string): Promise<void> {
  await mutate(api, 'session.create', { id, title: `Chat ${id}` });
  await mutate(api, 'turn.begin', { sessionId: id });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content: `What is in ${id}?` } });
  const call = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'Let me look.' } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'tool', content: 'readme.txt', calledBy: call.data.id, name: 'list_directory', input: { path: '.' } } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'One file: readme.txt' } });
  await mutate(api, 'turn.finalize', { sessionId: id });
  await mutate(api, 'turn.begin', { sessionId: id });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content: 'Thanks <b>a lot</b>' } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'You are welcome.' } });
  await mutate(api, 'turn.finalize', { sessionId: id });
}

async function nodeCount(api: Api, sessionId: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page: { data: { messages: unknown[]; nextCursor: string | null } } = await query(api, 'message.nodes', { sessionId, cursor });
    count += page.data.messages.length;
    cursor = page.data.nextCursor;
  } while (cursor);
  return count;
}

async function download(page: Page, open: () => Promise<void>): Promise<{ file: string; name: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), open()]);
  const saved = join(scratch(), (file as Download).suggestedFilename());
  await (file as Download).saveAs(saved);
  return { file: saved, name: (file as Download).suggestedFilename() };
}

function scratch(): string {
  mkdirSync(join(tmpdir(), 'export-e2e'), { recursive: true });
  return mkdtempSync(join(tmpdir(), 'export-e2e', 'dl-'));
}

test('the row menu downloads the Markdown, the JSON and the git bundle of a session', async ({ page, context, user, chatsPage: chats, sessionPage }) => {
  await seed(user.api, 'exp');
  await signInBrowser(context, user.api);
  await chats.goto();
  await expect.poll(() => chats.titles()).toEqual(['Chat exp']);

  // The row menu, looked at in both themes, wide and narrow.
  for (const [width, height] of [[1280, 720], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const menu = await chats.openMenu('Chat exp');
      await expect(menu.getByRole('menuitem', { name: 'Download git bundle' })).toBeVisible();
      await page.screenshot({ path: `/tmp/export-shots/row-menu-${colorScheme}-${width}.png` });
      await page.keyboard.press('Escape');
    }
  }
  await page.emulateMedia({ colorScheme: null });
  await page.setViewportSize({ width: 1280, height: 720 });

  const markdown = await download(page, () => chats.choose('Chat exp', 'Export as Markdown'));
  expect(markdown.name).toBe('exp.md');
  const text = readFileSync(markdown.file, 'utf8');
  expect(text).toMatch(/^# Chat exp\n/);
  expect(text).toContain('What is in exp?');
  expect(text).toContain('**Tool call `list_directory`**');
  expect(text).toContain('Thanks <b>a lot</b>');
  expect(text.indexOf('One file: readme.txt')).toBeLessThan(text.indexOf('You are welcome.'));

  const json = await download(page, () => chats.choose('Chat exp', 'Export as JSON'));
  const doc = JSON.parse(readFileSync(json.file, 'utf8')) as { schema: string; session: { id: string }; nodes: Array<{ id: string }>; branches: unknown[] };
  expect(doc.schema).toBe('entity-memory.session/1');
  expect(doc.session.id).toBe('exp');
  expect(doc.nodes).toHaveLength(await nodeCount(user.api, 'exp'));
  expect(doc.branches.length).toBeGreaterThan(0);

  const bundle = await download(page, () => chats.choose('Chat exp', 'Download git bundle'));
  expect(bundle.name).toBe('exp.bundle');
  const clone = join(scratch(), 'clone');
  execFileSync('git', ['clone', '--quiet', bundle.file, clone]);
  const commits = execFileSync('git', ['-C', clone, 'log', '--all', '--format=%s'], { encoding: 'utf8' }).trim().split('\n');
  // every turn commit and the session's first one
  expect(commits).toEqual(['turn: Thanks <b>a lot</b>', 'turn: What is in exp?', 'session init']);

  // The session page's Export menu gives the same downloads.
  await sessionPage.goto('exp');
  const sessionMenu = await sessionPage.openExportMenu();
  await expect(sessionMenu.items).toHaveText(['Export as Markdown', 'Export as JSON', 'Download git bundle', 'Export attribution (Agent Trace)']);
  await page.screenshot({ path: '/tmp/export-shots/session-export-menu.png' });
  const again = await download(page, () => sessionMenu.item('Export as JSON').click());
  expect((JSON.parse(readFileSync(again.file, 'utf8')) as { nodes: unknown[] }).nodes).toHaveLength(doc.nodes.length);
  await captureViews(page, 'export-session-page');
});

test('Export selected on the Chats page downloads one zip with a JSON per chosen session', async ({ page, context, user, chatsPage: chats }) => {
  for (const id of ['z1', 'z2', 'z3']) await seed(user.api, id);
  await signInBrowser(context, user.api);
  await chats.goto();
  const exportSelected = chats.main.getByRole('button', { name: 'Export selected', exact: true });
  await expect(exportSelected).toBeDisabled();
  await chats.checkbox('Chat z1').check();
  await chats.checkbox('Chat z3').check();
  await page.screenshot({ path: '/tmp/export-shots/chats-export-selected.png' });
  await captureViews(page, 'export-chats-selected');
  const zip = await download(page, () => exportSelected.click());
  expect(zip.name).toBe('entity-memory-sessions.zip');
  const files = unzipSync(readFileSync(zip.file));
  expect(Object.keys(files).sort()).toEqual(['z1.json', 'z3.json']);
  const z3 = JSON.parse(strFromU8(files['z3.json']!)) as { nodes: unknown[] };
  expect(z3.nodes).toHaveLength(await nodeCount(user.api, 'z3'));
  await expect(page).toHaveURL(/\/chats/); // a download, not a navigation
});

test('the export API: bearer auth, clear refusals, and another user\'s session is unknown', async ({ adminApi, user }) => {
  await seed(user.api, 'mine');
  const { token } = await createToken(user.api);
  const other = await createUser(adminApi, { label: 'other' });
  try {
    const ok = await other.api.get('/api/export/all.zip');
    expect(ok.status()).toBe(200);
    expect(Object.keys(unzipSync(await ok.body()))).toEqual([]);
    for (const format of ['md', 'json', 'bundle']) {
      const theirs = await other.api.get(`/api/export/mine?format=${format}`);
      expect(theirs.status()).toBe(404);
      expect(await theirs.json()).toEqual({ error: 'unknown session: mine' });
    }
    const zipOfMine = await other.api.get('/api/export/all.zip?ids=mine');
    expect(zipOfMine.status()).toBe(404);
  } finally {
    await other.api.dispose();
  }

  const viaToken = await user.api.get('/api/export/mine?format=json', { headers: bearer(token) });
  expect(viaToken.status()).toBe(200);
  expect(viaToken.headers()['content-disposition']).toBe('attachment; filename="mine.json"');
  expect(viaToken.headers()['cache-control']).toBe('private, no-store');

  const md = await user.api.get('/api/export/mine?format=md&toolCalls=0');
  expect(md.headers()['content-type']).toBe('text/markdown; charset=utf-8');
  expect(await md.text()).not.toContain('list_directory');
  expect((await user.api.get('/api/export/mine?format=pdf')).status()).toBe(400);
  expect(await (await user.api.get('/api/export/mine?format=md&reasoning=maybe')).json()).toEqual({ error: 'reasoning must be 1 or 0, not "maybe"' });
  expect((await user.api.get('/api/export/..%2Fx?format=json')).status()).toBe(400);
  expect((await user.api.delete('/api/export/mine')).status()).toBe(405);
  const signedOut = await newApiContext();
  expect((await signedOut.get('/api/export/mine?format=json')).status()).toBe(401);
  await signedOut.dispose();
});

/** Where the specs' screenshots go (test-results/screenshots/, as captureViews'). */
const SHOTS = join('test-results', 'screenshots');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' }).trim();
}

test('the git bundle of a forked session: a clone has every turn commit and both branch refs', async ({ page, context, user, sessionPage }) => {
  const api = user.api;
  await mutate(api, 'session.create', { id: 'fork', title: 'Chat fork' });
  await mutate(api, 'turn.begin', { sessionId: 'fork' });
  const question = await mutate<{ id: string }>(api, 'message.append', { sessionId: 'fork', message: { role: 'user', content: 'Pick a number' } });
  const first = await mutate<{ id: string }>(api, 'message.append', { sessionId: 'fork', message: { role: 'assistant', content: 'FIRST-ANSWER seven' } });
  expect((await mutate(api, 'turn.finalize', { sessionId: 'fork' })).status).toBe(200);
  // Retry the answer: the head goes back to the question, the old reply keeps a branch of its own.
  const retried = await mutate<{ parentId: string }>(api, 'branch.retry', { sessionId: 'fork', assistantId: first.data.id });
  expect(retried.status).toBe(200);
  expect(retried.data.parentId).toBe(question.data.id);
  await mutate(api, 'turn.begin', { sessionId: 'fork' });
  const second = await mutate<{ id: string }>(api, 'message.append', { sessionId: 'fork', message: { role: 'assistant', content: 'SECOND-ANSWER three', parentId: question.data.id } });
  expect(second.status).toBe(200);
  expect((await mutate(api, 'turn.finalize', { sessionId: 'fork' })).status).toBe(200);
  const branches = await query<unknown[]>(api, 'branch.list', { sessionId: 'fork' });
  expect(branches.data).toHaveLength(2);

  await signInBrowser(context, api);
  await sessionPage.goto('fork');
  const exportMenu = await sessionPage.openExportMenu();
  const bundle = await download(page, () => exportMenu.item('Download git bundle').click());
  expect(bundle.name).toBe('fork.bundle');

  // The bundle names both refs, and a plain clone brings both as remote branches.
  const retryRef = `refs/heads/retry-${first.data.id}`;
  const bundleRefs = git(scratch(), 'bundle', 'list-heads', bundle.file).split('\n').map((line) => line.split(' ')[1]);
  expect(bundleRefs.filter((ref) => ref !== 'HEAD').sort()).toEqual(['refs/heads/main', retryRef].sort());
  const clone = join(scratch(), 'clone');
  execFileSync('git', ['clone', '--quiet', bundle.file, clone]);
  expect(git(clone, 'for-each-ref', '--format=%(refname)', 'refs/remotes/origin').split('\n').filter((ref) => ref !== 'refs/remotes/origin/HEAD').sort()).toEqual(
    ['refs/remotes/origin/main', `refs/remotes/origin/retry-${first.data.id}`].sort(),
  );
  git(clone, 'fsck', '--no-progress');
  // Every turn commit: the first turn (where the retried answer is), the second, and the session's first one.
  const commits = git(clone, 'log', '--all', '--format=%s').split('\n');
  expect(commits).toHaveLength(3);
  expect(commits.at(-1)).toBe('session init');
  expect(commits).toContain('turn: Pick a number');
  // The retry branch holds the first answer and not the second; main holds both nodes of the DAG.
  const filesAt = (ref: string) => git(clone, 'ls-tree', '-r', '--name-only', ref, 'history/');
  expect(filesAt(`origin/retry-${first.data.id}`)).toContain(`-a-${first.data.id}.json`);
  expect(filesAt(`origin/retry-${first.data.id}`)).not.toContain(`-a-${second.data.id}.json`);
  expect(filesAt('origin/main')).toContain(`-a-${first.data.id}.json`);
  expect(filesAt('origin/main')).toContain(`-a-${second.data.id}.json`);
  expect(git(clone, 'show', `origin/main:history/${filesAt('origin/main').split('\n').find((name) => name.includes(second.data.id))!.slice('history/'.length)}`)).toContain('SECOND-ANSWER three');
});

test('the Export menu switches the Markdown: tool calls off and reasoning on', async ({ page, context, user, sessionPage }) => {
  const api = user.api;
  await mutate(api, 'session.create', { id: 'think', title: 'Chat think' });
  await mutate(api, 'turn.begin', { sessionId: 'think' });
  await mutate(api, 'message.append', { sessionId: 'think', message: { role: 'user', content: 'List the folder' } });
  const call = await mutate<{ id: string }>(api, 'message.append', {
    sessionId: 'think',
    message: { role: 'assistant', content: 'Let me look.', metadata: { reasoning: 'REASONING-The user wants the listing' } },
  });
  await mutate(api, 'message.append', { sessionId: 'think', message: { role: 'tool', content: 'TOOL-RESULT readme.txt', calledBy: call.data.id, name: 'list_directory', input: { path: '.' } } });
  await mutate(api, 'message.append', { sessionId: 'think', message: { role: 'assistant', content: 'One file: readme.txt' } });
  expect((await mutate(api, 'turn.finalize', { sessionId: 'think' })).status).toBe(200);

  await signInBrowser(context, api);
  await sessionPage.goto('think');
  const menu = await sessionPage.openExportMenu();
  const toolCalls = menu.option('Include tool calls');
  const reasoning = menu.option('Include reasoning');
  // DESIGN §10's defaults.
  await expect(toolCalls).toHaveAttribute('aria-checked', 'true');
  await expect(reasoning).toHaveAttribute('aria-checked', 'false');
  // A switch keeps the menu open: both are turned in one visit.
  await toolCalls.click();
  await expect(toolCalls).toHaveAttribute('aria-checked', 'false');
  await reasoning.click();
  await expect(reasoning).toHaveAttribute('aria-checked', 'true');
  await expect(menu.items).toHaveText(['Export as Markdown', 'Export as JSON', 'Download git bundle', 'Export attribution (Agent Trace)']);

  // Looked at light and dark, wide and narrow; the choice stays while the page does.
  mkdirSync(SHOTS, { recursive: true });
  await page.keyboard.press('Escape');
  for (const [width, height] of [[1280, 800], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await sessionPage.openExportMenu();
      await expect(reasoning).toHaveAttribute('aria-checked', 'true');
      await page.screenshot({ path: join(SHOTS, `export-markdown-switches-${colorScheme}-${width}.png`) });
      await page.keyboard.press('Escape');
    }
  }
  await page.emulateMedia({ colorScheme: null });
  await page.setViewportSize({ width: 1280, height: 800 });

  await sessionPage.openExportMenu();
  const markdown = await download(page, () => menu.item('Export as Markdown').click());
  expect(markdown.name).toBe('think.md');
  const text = readFileSync(markdown.file, 'utf8');
  expect(text).toContain('> **Reasoning**\n>\n> REASONING-The user wants the listing');
  expect(text).not.toContain('list_directory');
  expect(text).not.toContain('TOOL-RESULT');
  expect(text).toContain('One file: readme.txt');

  // The defaults again after a reload: tool calls in, reasoning out.
  await page.reload();
  await sessionPage.opened();
  await sessionPage.openExportMenu();
  const plain = readFileSync((await download(page, () => menu.item('Export as Markdown').click())).file, 'utf8');
  expect(plain).toContain('**Tool call `list_directory`**');
  expect(plain).toContain('TOOL-RESULT readme.txt');
  expect(plain).not.toContain('REASONING-');
});

test.describe('under OPENPROGRAM_EXPORT_MARKDOWN_MAX_BYTES=8192', () => {
  const PORT = 3872;
  const LIMIT = 8192;
  const ADMIN = { email: 'export-admin@e2e.test', password: 'export-admin-password' };
  let server: ServerProcess;
  let api: APIRequestContext;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    ({ server, api } = await startServerSignedIn({ port: PORT, dataDir: freshDataDir(), admin: ADMIN, env: { OPENPROGRAM_EXPORT_MARKDOWN_MAX_BYTES: String(LIMIT) } }));
  });

  test.afterAll(async () => {
    await api?.dispose();
    await server?.stop();
  });

  test('a Markdown export past the limit is a 413 with a message, over HTTP and in the menu; JSON and the bundle still export', async ({ browser }) => {
    test.setTimeout(120_000);
    await mutate(api, 'session.create', { id: 'big', title: 'Chat big' });
    await mutate(api, 'turn.begin', { sessionId: 'big' });
    for (let i = 0; i < 4; i++) {
      await mutate(api, 'message.append', { sessionId: 'big', message: { role: 'user', content: `${i} ${'words '.repeat(500)}` } });
      await mutate(api, 'message.append', { sessionId: 'big', message: { role: 'assistant', content: `${i} ok` } });
    }
    expect((await mutate(api, 'turn.finalize', { sessionId: 'big' })).status).toBe(200);
    await seed(api, 'small');

    const refused = await api.get('/api/export/big?format=md');
    expect(refused.status()).toBe(413);
    expect(refused.headers()['content-type']).toBe('application/json');
    expect(refused.headers()['content-disposition']).toBeUndefined();
    const { error } = (await refused.json()) as { error: string };
    const size = /^the Markdown export would be (\d+) KB, more than the 8 KB limit: export as JSON or as a git bundle$/.exec(error);
    expect(size, error).not.toBeNull();
    expect(Number(size![1])).toBeGreaterThan(8);
    expect((await api.head('/api/export/big?format=md')).status()).toBe(413);
    // Without tool calls it is no smaller here (none): still refused, never cut.
    expect((await api.get('/api/export/big?format=md&toolCalls=0')).status()).toBe(413);
    expect((await api.get('/api/export/big?format=json')).status()).toBe(200);
    expect((await api.get('/api/export/big?format=bundle')).status()).toBe(200);
    const small = await api.get('/api/export/small?format=md');
    expect(small.status()).toBe(200);
    expect(await small.text()).toContain('What is in small?');

    // In the browser: the message, not a failed download.
    const context = await browser.newContext({ baseURL: server.url });
    const { cookies } = await api.storageState();
    await context.addCookies(cookies.map((cookie) => ({ ...cookie, url: server.url, domain: undefined, path: undefined })));
    const page = await context.newPage();
    const downloads: string[] = [];
    page.on('download', (file) => downloads.push(file.suggestedFilename()));
    // A page of its own on this test's server (with its export limit): not the fixture's.
    const sessionPage = new SessionPage(page);
    await sessionPage.goto('big');
    const bigMenu = await sessionPage.openExportMenu();
    await bigMenu.item('Export as Markdown').click();
    await expect(page.getByText(`Not exported: ${error}`)).toBeVisible();
    await expect(bigMenu.root).toHaveCount(0); // chosen: the menu closed as for any item
    await captureViews(page, 'export-markdown-too-large');
    expect(downloads).toEqual([]);
    // The accepted one still downloads from the same menu.
    await sessionPage.goto('small');
    const smallMenu = await sessionPage.openExportMenu();
    const [file] = await Promise.all([page.waitForEvent('download'), smallMenu.item('Export as Markdown').click()]);
    expect(file.suggestedFilename()).toBe('small.md');
    await context.close();
  });
});
