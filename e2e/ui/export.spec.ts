import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Download, Page } from '@playwright/test';
import { strFromU8, unzipSync } from 'fflate';
import { bearer, captureViews, createToken, createUser, expect, mutate, newApiContext, query, signInBrowser, test } from '../fixtures';
import { ChatsPage } from '../pages/chats';

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

test('the row menu downloads the Markdown, the JSON and the git bundle of a session', async ({ page, context, user }) => {
  await seed(user.api, 'exp');
  await signInBrowser(context, user.api);
  const chats = new ChatsPage(page);
  await chats.goto();
  await expect.poll(() => chats.titles()).toEqual(['Chat exp']);

  // The row menu, looked at in both themes, wide and narrow.
  for (const [width, height] of [[1280, 720], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await chats.main.getByRole('button', { name: 'Options for Chat exp', exact: true }).click();
      await expect(page.getByRole('menu').getByRole('menuitem', { name: 'Download git bundle' })).toBeVisible();
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
  await page.goto('/sessions/exp');
  await page.getByRole('main').getByRole('button', { name: 'Export', exact: true }).click();
  await expect(page.getByRole('menu').getByRole('menuitem')).toHaveText(['Export as Markdown', 'Export as JSON', 'Download git bundle']);
  await page.screenshot({ path: '/tmp/export-shots/session-export-menu.png' });
  const again = await download(page, () => page.getByRole('menu').getByRole('menuitem', { name: 'Export as JSON' }).click());
  expect((JSON.parse(readFileSync(again.file, 'utf8')) as { nodes: unknown[] }).nodes).toHaveLength(doc.nodes.length);
  await captureViews(page, 'export-session-page');
});

test('Export selected on the Chats page downloads one zip with a JSON per chosen session', async ({ page, context, user }) => {
  for (const id of ['z1', 'z2', 'z3']) await seed(user.api, id);
  await signInBrowser(context, user.api);
  const chats = new ChatsPage(page);
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
