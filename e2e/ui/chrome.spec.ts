import type { ConsoleMessage, Page } from '@playwright/test';
import { appendMessage, captureViews, createSession, expect, mutate, query, signInBrowser, test, type SessionDetail } from '../fixtures';
import { ChatsPage } from '../pages/chats';
import { SessionPage } from '../pages/session';
import { Sidebar } from '../pages/sidebar';

const CODE = 'const answer: number = 42;\nconsole.log(`answer: ${answer}`);';
const REPLY = `Here is the code:\n\n\`\`\`ts\n${CODE}\n\`\`\`\n\nand Euler's identity: $e^{i\\pi} + 1 = 0$.`;

/** Hydration complaints React logs in the browser's console. */
function watchHydration(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error' && /hydrat|did not match/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => {
    if (/hydrat|did not match/i.test(error.message)) problems.push(error.message);
  });
  return problems;
}

test('copy a message and a code block (with its language), formulas as KaTeX', async ({ page, context, user }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const session = await createSession(user.api, { id: 'copying', title: 'Copy things' });
  await appendMessage(user.api, session.id, { role: 'user', content: 'Show me **code**' });
  await appendMessage(user.api, session.id, { role: 'assistant', content: REPLY });
  await signInBrowser(context, user.api);
  const view = new SessionPage(page);
  await view.goto(session.id);

  const reply = view.message('Assistant');
  const copyCode = reply.getByRole('button', { name: 'Copy typescript code' });
  await expect(copyCode).toBeVisible();
  await expect(reply.getByText('typescript', { exact: true })).toBeVisible();
  await copyCode.click();
  await expect(page.getByText('Code copied')).toBeVisible();
  const codeText = await reply.locator('pre').textContent();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(CODE);
  expect(codeText).toBe(CODE);

  await reply.getByRole('button', { name: 'Copy message' }).click();
  await expect(reply.getByRole('button', { name: 'Copy message' })).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(REPLY);
  await view.message('User').getByRole('button', { name: 'Copy message' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Show me **code**');

  // The formula is typeset (MathML for assistive technology, KaTeX's HTML on screen).
  await expect(reply.getByRole('math')).toHaveCount(1);
  await expect(reply.locator('.katex-html')).toBeVisible();
  await expect(reply).not.toContainText('$e^');
  await captureViews(page, 'chrome-code-copy');
});

test('the session header menu: rename (the tab follows), pin, archive with Undo, delete with Undo', async ({ page, context, user }) => {
  const session = await createSession(user.api, { id: 'menu-me', title: 'Menu target' });
  await appendMessage(user.api, session.id, { role: 'user', content: 'hello' });
  await signInBrowser(context, user.api);
  const view = new SessionPage(page);
  await view.goto(session.id);
  await expect(page).toHaveTitle('Menu target · Entity Memory');

  const options = page.getByRole('main').getByRole('button', { name: 'Session options' });
  const menuItem = (name: string) => page.getByRole('menu').getByRole('menuitem', { name, exact: true });
  // Rename: Escape gives the focus back to the menu button; Enter saves.
  await options.click();
  await menuItem('Rename').click();
  const field = page.getByRole('main').getByRole('textbox', { name: 'Session title' });
  await expect(field).toBeFocused();
  await field.fill('Not kept');
  await field.press('Escape');
  await expect(view.title).toHaveText('Menu target');
  await expect(options).toBeFocused();
  await options.click();
  await menuItem('Rename').click();
  await field.fill('Renamed from the header');
  await field.press('Enter');
  await expect(view.title).toHaveText('Renamed from the header');
  await expect(page).toHaveTitle('Renamed from the header · Entity Memory');
  await expect(options).toBeFocused();
  await expect.poll(async () => (await query<SessionDetail>(user.api, 'session.get', { id: session.id })).data.title).toBe('Renamed from the header');

  await options.click();
  await menuItem('Pin').click();
  await expect(page.getByRole('main').getByText('Pinned', { exact: true })).toBeVisible();
  await expect.poll(async () => (await query<SessionDetail>(user.api, 'session.get', { id: session.id })).data.pinned).toBe(true);

  await options.click();
  await menuItem('Archive').click();
  const archivedToast = page.getByRole('listitem').filter({ hasText: 'Archived “Renamed from the header”' });
  await expect(archivedToast).toBeVisible();
  await expect.poll(async () => (await query<SessionDetail>(user.api, 'session.get', { id: session.id })).data.archived).toBe(true);
  await captureViews(page, 'chrome-session-header-archived');
  await archivedToast.getByRole('button', { name: 'Undo' }).click();
  await expect.poll(async () => (await query<SessionDetail>(user.api, 'session.get', { id: session.id })).data.archived).toBe(false);

  // Delete asks, leaves the page, and waits: Undo in time keeps the session.
  await options.click();
  await menuItem('Delete').click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/$/);
  const deletedToast = page.getByRole('listitem').filter({ hasText: 'Deleted “Renamed from the header”' });
  await expect(deletedToast).toBeVisible();
  await expect(new Sidebar(page).row('Renamed from the header')).toHaveCount(0);
  await deletedToast.getByRole('button', { name: 'Undo' }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${session.id}$`));
  await expect(new Sidebar(page).row('Renamed from the header')).toBeVisible();
  await page.waitForTimeout(6_000); // past the grace period: still there
  expect((await query(user.api, 'session.get', { id: session.id })).status).toBe(200);

  // Without Undo it is gone after the grace period.
  await options.click();
  await menuItem('Delete').click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect.poll(async () => (await query(user.api, 'session.get', { id: session.id })).status, { timeout: 15_000 }).toBe(404);
});

test('a delete still waiting for its Undo is carried out when the page is left', async ({ page, context, user }) => {
  const session = await createSession(user.api, { id: 'leave-me', title: 'Left behind' });
  await appendMessage(user.api, session.id, { role: 'user', content: 'hello' });
  await signInBrowser(context, user.api);
  await new SessionPage(page).goto(session.id);
  await page.getByRole('main').getByRole('button', { name: 'Session options' }).click();
  await page.getByRole('menu').getByRole('menuitem', { name: 'Delete', exact: true }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByRole('listitem').filter({ hasText: 'Deleted “Left behind”' })).toBeVisible();
  await page.close({ runBeforeUnload: true });
  await expect.poll(async () => (await query(user.api, 'session.get', { id: session.id })).status, { timeout: 4_000 }).toBe(404);
});

test('one time zone everywhere: the viewer’s, on the session page and the timeline, hydrating cleanly', async ({ browser, user }) => {
  const context = await browser.newContext({ timezoneId: 'America/New_York', locale: 'de-DE' });
  const page = await context.newPage();
  const problems = watchHydration(page);
  const session = await createSession(user.api, { id: 'zoned', title: 'Zoned' });
  await mutate(user.api, 'turn.begin', { sessionId: session.id });
  const message = await appendMessage(user.api, session.id, { role: 'user', content: 'what time is it' });
  await mutate(user.api, 'turn.finalize', { sessionId: session.id, status: 'idle' });
  await signInBrowser(context, user.api);
  const inNewYork = (ms: number) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(ms));
  const expected = inNewYork(message.createdAt);
  const turns = await query<{ commits: { createdAt: number }[] }>(user.api, 'timeline.list', { sessionId: session.id });
  const expectedTurn = inNewYork(turns.data.commits[0]!.createdAt);

  // The first visit renders in UTC on the server (the zone is not known yet), then switches; the next is right from the server.
  for (const visit of ['first', 'second']) {
    await page.goto(`/sessions/${session.id}`);
    await expect(page.getByRole('article', { name: 'User' }).locator('time')).toHaveText(expected);
    await page.goto(`/sessions/${session.id}/timeline`);
    const turn = page.getByRole('article', { name: 'Turn 1' });
    await expect(turn.locator('time')).toHaveText(expectedTurn);
    await expect(page.getByRole('main')).not.toContainText('UTC');
    expect(problems, visit).toEqual([]);
  }
  const served = await (await context.request.get(`/sessions/${session.id}/timeline`)).text();
  expect(served).toContain(`>${expectedTurn}</time>`);
  await context.close();
});

test('Chats: select all, and j / k move through the page’s own list', async ({ page, context, user }) => {
  for (const id of ['s1', 's2', 's3']) {
    await createSession(user.api, { id, title: `Chat ${id}` });
    await appendMessage(user.api, id, { role: 'user', content: `about ${id}` });
  }
  await signInBrowser(context, user.api);
  const chats = new ChatsPage(page);
  await chats.goto();
  await expect.poll(() => chats.titles()).toEqual(['Chat s3', 'Chat s2', 'Chat s1']);

  const all = chats.main.getByRole('checkbox', { name: 'Select all' });
  await all.click();
  await expect(chats.main.getByText('3 selected')).toBeVisible();
  for (const id of ['s1', 's2', 's3']) await expect(chats.checkbox(`Chat ${id}`)).toBeChecked();
  await chats.checkbox('Chat s2').uncheck();
  await expect(all).toHaveAttribute('data-state', 'indeterminate');
  await all.click();
  await expect(chats.main.getByText('3 selected')).toBeVisible();
  await all.click();
  await expect(chats.main.getByText('Select sessions for bulk actions')).toBeVisible();
  await captureViews(page, 'chrome-chats-select');

  await page.locator('main h1').click();
  await page.keyboard.press('j');
  await expect(chats.row('Chat s3')).toBeFocused();
  await page.keyboard.press('j');
  await expect(chats.row('Chat s2')).toBeFocused();
  await page.keyboard.press('k');
  await expect(chats.row('Chat s3')).toBeFocused();
});

test('a sidebar rename ended with Escape gives the focus back to the row’s menu button; the app has a favicon', async ({ page, context, user }) => {
  await createSession(user.api, { id: 'focus-me', title: 'Focus me' });
  await appendMessage(user.api, 'focus-me', { role: 'user', content: 'hi' });
  await signInBrowser(context, user.api);
  await page.goto('/');
  const sidebar = new Sidebar(page);
  await sidebar.choose('Focus me', 'Rename');
  await sidebar.nav.getByRole('textbox', { name: 'Session title' }).press('Escape');
  await expect(sidebar.nav.getByRole('button', { name: 'Options for Focus me' })).toBeFocused();

  const icon = await page.locator('link[rel="icon"]').getAttribute('href');
  expect(icon).toMatch(/^\/icon\.svg/);
  const served = await page.request.get(icon!);
  expect(served.status()).toBe(200);
  expect(served.headers()['content-type']).toContain('image/svg+xml');
});
