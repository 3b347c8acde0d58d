import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, type APIRequestContext, type Page } from '@playwright/test';
import {
  e2eScratchDir,
  expect,
  freshDataDir,
  mutate,
  query,
  signInBrowser,
  startServerSignedIn,
  test,
  type ServerProcess,
} from '../fixtures';
import { SharedLinkPage } from '../pages/shared-link';

const SHOTS = '/tmp/share-shots';
const DAY = 24 * 60 * 60 * 1000;
/** A well-formed id no link ever had: what a revoked or expired link must be indistinguishable from. */
const NEVER = `${'Q'.repeat(21)}w`;

type Api = APIRequestContext;

interface Seeded {
  id: string;
  attachment: string;
  unshownAttachment: string;
}

/**
 * A session with what a share link must never show: a system message and a system prompt, a
 * second branch beside the first question; and what it shows: two turns with a tool call and
 * an attachment of a shown message.
 */
async function seed(api: Api, id: string): Promise<Seeded> {
  expect((await mutate(api, 'session.create', { id, title: `Shared ${id}` })).status).toBe(200);
  expect((await mutate(api, 'chat.setSettings', { sessionId: id, systemPrompt: `PROMPT-SECRET-${id}` })).status).toBe(200);
  const upload = async (name: string, text: string) => {
    const response = await api.post('/api/attachments', { multipart: { sessionId: id, file: { name, mimeType: 'text/plain', buffer: Buffer.from(text) } } });
    expect(response.status()).toBe(200);
    return ((await response.json()) as { id: string }).id;
  };
  const attachment = await upload('notes.txt', `notes of ${id}`);
  const unshownAttachment = await upload('private.txt', 'not in any shown message');
  await mutate(api, 'turn.begin', { sessionId: id });
  const system = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'system', content: `SYSTEM-SECRET-${id}` } });
  const question = await mutate<{ id: string }>(api, 'message.append', {
    sessionId: id,
    message: { role: 'user', content: 'Question **one**', parentId: system.data.id, metadata: { attachments: [{ id: attachment, name: 'notes.txt', size: 12 }] } },
  });
  const call = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'Let me look.' } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'tool', content: 'readme.txt', calledBy: call.data.id, name: 'list_directory', input: { path: '.' } } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'Answer one' } });
  // Another branch beside the first question: in git, never on the shared branch.
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content: `OTHER-BRANCH-${id}`, parentId: system.data.id } });
  expect((await mutate(api, 'turn.finalize', { sessionId: id })).status).toBe(200);
  expect(question.status).toBe(200);
  await turn(api, id, 'Question two', 'Answer two');
  return { id, attachment, unshownAttachment };
}

async function turn(api: Api, id: string, question: string, answer: string): Promise<void> {
  await mutate(api, 'turn.begin', { sessionId: id });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content: question } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: answer } });
  expect((await mutate(api, 'turn.finalize', { sessionId: id })).status).toBe(200);
}

/** Nothing the page must never carry, anywhere in its HTML (the RSC payload included). */
function expectNothingPrivate(html: string, id: string, email: string): void {
  for (const secret of [`SYSTEM-SECRET-${id}`, `PROMPT-SECRET-${id}`, `OTHER-BRANCH-${id}`, email, e2eScratchDir(), 'private.txt', '"sessionId"', `/sessions/${id}`]) {
    expect(html, secret).not.toContain(secret);
  }
}

/** The 404 of a link that cannot be opened, page and API, compared with an id that never existed. */
async function expectGone(api: Api, base: string, linkId: string): Promise<void> {
  const never = await api.get(`${base}/api/trpc/share.view?input=${encodeURIComponent(JSON.stringify({ id: NEVER }))}`);
  const gone = await api.get(`${base}/api/trpc/share.view?input=${encodeURIComponent(JSON.stringify({ id: linkId }))}`);
  expect(gone.status()).toBe(404);
  expect(await gone.json()).toEqual(await never.json());
  const page = await api.get(`${base}/s/${linkId}`);
  const neverPage = await api.get(`${base}/s/${NEVER}`);
  expect(page.status()).toBe(404);
  expect(neverPage.status()).toBe(404);
  expect(await page.text()).toContain('Link not found');
}

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (const [width, height] of [[1280, 800], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.waitForTimeout(150);
      await page.screenshot({ path: `${SHOTS}/${name}-${colorScheme}-${width}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: null });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('the owner shares from the session menu: pinned at its turn, Update moves it, the row says Shared, Revoke ends it; signed out is sent to sign in', async ({ page, sessionPage, sharedLinkPage: shared, settingsPage, chatsPage, sidebar, context, user, browser }) => {
  test.setTimeout(240_000);
  const seeded = await seed(user.api, 'sh1');
  await signInBrowser(context, user.api);
  await sessionPage.goto('sh1');
  const share = await sessionPage.openShareDialog();
  const dialog = share.root;
  await expect(dialog).toBeVisible();
  await share.expires.selectOption('1d');
  await shoot(page, 'dialog-new');
  await share.createButton.click();
  const linkField = share.linkField;
  await expect(linkField).toHaveValue(/\/s\/[A-Za-z0-9_-]{22}$/);
  await expect(share.upToTurn(2)).toBeVisible();
  await expect(share.button('Copy link')).toBeVisible();
  await shoot(page, 'dialog-link');
  const url = await linkField.inputValue();
  const linkId = url.split('/s/')[1]!;
  await page.keyboard.press('Escape');

  // The row carries the marker, in the sidebar.
  const row = sidebar.row('Shared sh1');
  await expect(row.getByRole('img', { name: 'Shared' })).toBeVisible();

  // A turn after sharing is not on the pinned link.
  await turn(user.api, 'sh1', 'LATER-QUESTION', 'LATER-ANSWER');
  const reader = await browser.newContext();
  const readerPage = await reader.newPage();
  // Signed out under the default `login`: sent to sign in, the link's content not in the answer.
  const signedOut = await readerPage.goto(url);
  await expect(readerPage).toHaveURL(/\/signin\?callbackUrl=%2Fs%2F/);
  expect(await readerPage.content()).not.toContain('Answer one');
  expect(signedOut?.status()).toBe(200);
  const anonymous = await request.newContext();
  const refused = await anonymous.get(`${new URL(url).origin}/api/trpc/share.view?input=${encodeURIComponent(JSON.stringify({ id: linkId }))}`);
  expect(refused.status()).toBe(401);
  const refusedFile = await anonymous.get(`${new URL(url).origin}/api/share/${linkId}/attachments/${seeded.attachment}`);
  expect(refusedFile.status()).toBe(401);
  await reader.close();

  // Signed in (the owner here: any user of the instance may), the page shows turn 2 and no later one.
  const opened = await shared.goto(url);
  expect(opened?.headers()['x-robots-tag']).toBe('noindex');
  expect(opened?.headers()['cache-control']).toBe('no-store');
  await expect(shared.heading('Shared sh1')).toBeVisible();
  await expect(shared.message('Assistant').last()).toContainText('Answer two');
  await expect(page.getByText('LATER-QUESTION')).toHaveCount(0);
  expectNothingPrivate(await page.content(), 'sh1', user.email);

  // Update: the same link now shows the newest turn.
  await sessionPage.goto('sh1');
  await sessionPage.openShareDialog();
  await share.button('Update').click();
  await expect(share.upToTurn(3)).toBeVisible();
  await expect(linkField).toHaveValue(url);
  await page.keyboard.press('Escape');
  await shared.goto(url);
  await expect(shared.message('User').last()).toContainText('LATER-QUESTION');

  // Settings lists it; Revoke there ends it on the very next request.
  await settingsPage.goto();
  const section = settingsPage.shareLinks;
  await expect(section.getByRole('link', { name: 'Shared sh1' })).toBeVisible();
  await section.getByRole('link', { name: 'Shared sh1' }).scrollIntoViewIfNeeded();
  await shoot(page, 'settings-list');
  await section.getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(section.getByText('You have not shared any session.')).toBeVisible();
  await expectGone(user.api, '', linkId);
  await chatsPage.goto();
  const chatsRow = chatsPage.row('Shared sh1');
  await expect(chatsRow).toBeVisible();
  await expect(chatsRow.getByRole('img', { name: 'Shared' })).toHaveCount(0);
});

test('Revoke in the session menu\'s Share dialog: page, API and the shared attachment are 404 on the very next request, as an id that never existed', async ({ page, sessionPage, sharedLinkPage, context, user }) => {
  test.setTimeout(180_000);
  const seeded = await seed(user.api, 'rv1');
  await signInBrowser(context, user.api);
  await sessionPage.goto('rv1');
  const share = await sessionPage.openShareDialog();
  await share.createButton.click();
  await expect(share.linkField).toHaveValue(/\/s\/[A-Za-z0-9_-]{22}$/);
  const linkId = (await share.linkField.inputValue()).split('/s/')[1]!;

  // Open before: page, API and the attachment of a shown message (signed in, as `login` asks).
  const view = (id: string) => user.api.get(`/api/trpc/share.view?input=${encodeURIComponent(JSON.stringify({ id }))}`);
  const file = (id: string) => user.api.get(`/api/share/${id}/attachments/${seeded.attachment}`);
  expect((await user.api.get(`/s/${linkId}`)).status()).toBe(200);
  expect((await view(linkId)).status()).toBe(200);
  const before = await file(linkId);
  expect(before.status()).toBe(200);
  expect(await before.text()).toBe('notes of rv1');

  // Revoke in the same dialog; once it says so, the very next requests find nothing.
  await share.links.getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(page.getByText('Link revoked: it opens nothing any more.')).toBeVisible();
  const [gonePage, goneView, goneFile] = await Promise.all([user.api.get(`/s/${linkId}`), view(linkId), file(linkId)]);
  const [neverPage, neverView, neverFile] = await Promise.all([user.api.get(`/s/${NEVER}`), view(NEVER), file(NEVER)]);
  expect([gonePage.status(), goneView.status(), goneFile.status()]).toEqual([404, 404, 404]);
  expect([neverPage.status(), neverView.status(), neverFile.status()]).toEqual([404, 404, 404]);
  expect(await goneView.json()).toEqual(await neverView.json());
  expect(await goneFile.json()).toEqual(await neverFile.json());
  expect(goneFile.headers()['content-type']).toBe(neverFile.headers()['content-type']);
  const [goneHtml, neverHtml] = [await gonePage.text(), await neverPage.text()];
  expect(goneHtml).toContain('Link not found');
  expect(neverHtml).toContain('Link not found');
  expect(goneHtml).not.toContain('notes.txt');
  // The dialog no longer lists it, and offers a new one.
  await expect(share.links).toHaveCount(0);
  await expect(share.createButton).toBeVisible();
  await shoot(page, 'dialog-revoked');
  // A browser on the revoked link sees the never-existed page.
  await page.keyboard.press('Escape');
  await sharedLinkPage.goto(`/s/${linkId}`);
  await expect(sharedLinkPage.notFoundHeading).toBeVisible();
});

test('a long shared session opens on its newest page, as the session page does, and pages to older turns on scroll; a rename after the pin does not reach it', async ({ page, sharedLinkPage: shared, context, user }) => {
  test.setTimeout(300_000);
  const TURNS = 50;
  const PAGE = 50;
  const question = (n: number) => `Question ${String(n).padStart(3, '0')}`;
  expect((await mutate(user.api, 'session.create', { id: 'long-share', title: 'Title at the pin' })).status).toBe(200);
  for (let i = 1; i <= TURNS; i++) await turn(user.api, 'long-share', question(i), `Answer ${String(i).padStart(3, '0')}`);
  const created = await mutate<{ id: string; path: string }>(user.api, 'share.create', { sessionId: 'long-share' });
  expect(created.status).toBe(200);
  // Renamed after the link was pinned: the link keeps the title of its commit (issue 27 item 10).
  expect((await mutate(user.api, 'session.update', { id: 'long-share', title: 'Renamed after the pin' })).status).toBe(200);

  await signInBrowser(context, user.api);
  await shared.goto(created.data.path);
  await expect(shared.heading('Title at the pin')).toBeVisible();
  await expect(page.getByText('Renamed after the pin')).toHaveCount(0);
  // One page of the session page's size, the newest turn last and in view (issue 27 item 4).
  const messages = shared.messages;
  await expect(messages).toHaveCount(PAGE);
  await expect(messages.last()).toContainText(`Answer ${String(TURNS).padStart(3, '0')}`);
  await expect(messages.last()).toBeInViewport();
  const firstShown = question(TURNS - PAGE / 2 + 1);
  await expect(messages.first()).toContainText(firstShown);
  await expect(page.getByText(question(1), { exact: true })).toHaveCount(0);
  await expect(shared.olderMessagesNotice).toBeVisible();

  // Scrolling up loads the page before, and what was at the top stays in view.
  await page.getByText(firstShown, { exact: true }).scrollIntoViewIfNeeded();
  await page.mouse.wheel(0, -2000);
  await expect(messages).toHaveCount(2 * PAGE);
  await expect(page.getByText(firstShown, { exact: true })).toBeInViewport();
  await expect(messages.first()).toContainText(question(1));
  await expect(page.getByText('Start of the conversation', { exact: true })).toBeAttached();
});

test.describe('under OPENPROGRAM_SHARING=public', () => {
  const PORT = 3860;
  const ADMIN = { email: 'share-admin@e2e.test', password: 'share-admin-password' };
  let server: ServerProcess;
  let clockFile: string;
  let api: APIRequestContext;
  let dataDir: string;
  /** a link made without expiry, for the restart under `off` */
  let lasting = '';

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    dataDir = freshDataDir();
    clockFile = join(dataDir, '..', `share-clock-${PORT}`);
    writeFileSync(clockFile, '0');
    ({ server, api } = await startServerSignedIn({ port: PORT, dataDir, admin: ADMIN, env: { OPENPROGRAM_SHARING: 'public', OPENPROGRAM_TEST_CLOCK_FILE: clockFile } }));
  });

  test.afterAll(async () => {
    await api?.dispose();
    await server?.stop();
  });

  test('a link opens signed out, shows only the shared branch and its attachment, and is 404 once expired', async ({ browser }) => {
    test.setTimeout(180_000);
    const seeded = await seed(api, 'pub');
    const created = await mutate<{ id: string; path: string; expiresAt: number }>(api, 'share.create', { sessionId: 'pub', expires: '1d' });
    expect(created.status).toBe(200);
    const { id: linkId, path } = created.data;
    await turn(api, 'pub', 'LATER-QUESTION', 'LATER-ANSWER');

    const visitor = await browser.newContext();
    const page = await visitor.newPage();
    // A signed-out visitor's page on this test's own server: not the fixture's.
    const shared = new SharedLinkPage(page);
    const response = await shared.goto(`${server.url}${path}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['x-robots-tag']).toBe('noindex');
    expect(response?.headers()['cache-control']).toBe('no-store');
    await expect(page).toHaveURL(`${server.url}${path}`);
    await expect(shared.heading('Shared pub')).toBeVisible();
    await expect(shared.message('User')).toHaveCount(2);
    await expect(shared.message('Assistant')).toHaveCount(3);
    // Markdown rendered by the server's renderer, the tool call folded under its message.
    await expect(shared.message('User').first().locator('strong')).toHaveText('one');
    await expect(page.getByText('Tool call: list_directory')).toBeVisible();
    await expect(page.getByText('LATER-QUESTION')).toHaveCount(0);
    expectNothingPrivate(await page.content(), 'pub', ADMIN.email);
    expect(await (await api.get(path)).text()).not.toContain('LATER-ANSWER');
    await shoot(page, 'shared-page');

    // The attachment of a shown message, through the link only; another file of the session is not.
    const file = shared.attachment(/notes\.txt/);
    const href = await file.getAttribute('href');
    expect(href).toBe(`/api/share/${linkId}/attachments/${seeded.attachment}`);
    const anonymous = await request.newContext({ baseURL: server.url });
    const download = await anonymous.get(href!);
    expect(download.status()).toBe(200);
    expect(await download.text()).toBe('notes of pub');
    expect(download.headers()['content-disposition']).toMatch(/^attachment;/);
    expect((await anonymous.get(`/api/share/${linkId}/attachments/${seeded.unshownAttachment}`)).status()).toBe(404);
    expect((await anonymous.get(`/api/attachments/pub/${seeded.attachment}`)).status()).toBe(401);

    // The API answers the same view signed out.
    const viewed = await query<{ messages: Array<{ content: string }> }>(anonymous, 'share.view', { id: linkId });
    expect(viewed.status).toBe(200);
    expect(viewed.data.messages.map((m) => m.content)).toEqual(['Question **one**', 'Let me look.', 'Answer one', 'Question two', 'Answer two']);

    // A turn-only link, hiding tool calls: only what turn 1 added.
    const single = await mutate<{ id: string }>(api, 'share.create', { sessionId: 'pub', scope: 'turn', turn: 1, toolCalls: false });
    const one = await query<{ messages: Array<{ content: string; toolCalls: unknown[] }> }>(anonymous, 'share.view', { id: single.data.id });
    expect(one.data.messages.map((m) => m.content)).toEqual(['Question **one**', 'Let me look.', 'Answer one']);
    expect(one.data.messages.every((m) => m.toolCalls.length === 0)).toBe(true);

    // A live link follows the head.
    const live = await mutate<{ id: string }>(api, 'share.create', { sessionId: 'pub', scope: 'live' });
    const followed = await query<{ messages: Array<{ content: string }> }>(anonymous, 'share.view', { id: live.data.id });
    expect(followed.data.messages.at(-1)?.content).toBe('LATER-ANSWER');

    // A day and a moment later on the server's clock: every answer is the never-existed one.
    writeFileSync(clockFile, String(DAY + 60_000));
    await expectGone(anonymous, '', linkId);
    expect((await anonymous.get(href!)).status()).toBe(404);
    await page.reload();
    await expect(shared.notFoundHeading).toBeVisible();
    // The links made without expiry still open.
    expect((await query(anonymous, 'share.view', { id: live.data.id })).status).toBe(200);
    lasting = live.data.id;
    await anonymous.dispose();
    await visitor.close();
  });

  test('restarted with OPENPROGRAM_SHARING=off, no link opens (the never-existed answer) and none can be made', async () => {
    test.setTimeout(180_000);
    expect(lasting).not.toBe('');
    await api.dispose();
    await server.stop();
    ({ server, api } = await startServerSignedIn({ port: PORT, dataDir, admin: ADMIN, createAdmin: false, env: { OPENPROGRAM_SHARING: 'off' } }));
    // Signed in or not, page and API: exactly the answer of an id that never existed.
    const anonymous = await request.newContext({ baseURL: server.url });
    for (const viewer of [api, anonymous]) await expectGone(viewer, '', lasting);
    const made = await mutate(api, 'share.create', { sessionId: 'pub' });
    expect(made.status).toBe(403);
    expect(made.body.error?.message).toBe('sharing is turned off on this server (OPENPROGRAM_SHARING=off)');
    const listed = await query<{ mode: string; links: unknown[] }>(api, 'share.list');
    expect(listed.data.mode).toBe('off');
    expect(listed.data.links.length).toBeGreaterThan(0); // still there to revoke
    expect((await mutate(api, 'share.revoke', { id: lasting })).status).toBe(200);
    await anonymous.dispose();
  });
});
