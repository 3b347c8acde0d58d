import { bearer, createToken, createUser, expect, mutate, signInBrowser, test } from '../fixtures';
import { Sidebar } from '../pages/sidebar';

// "Within a second" (DESIGN §7): each check below waits at most that long for the other tab.
const LIVE = { timeout: 1_000 };

test('two tabs of one user: rename, pin, archive and delete in one show in the other without a reload', async ({ context, user }) => {
  for (const id of ['first', 'second', 'third']) await mutate(user.api, 'session.create', { id, title: `Tab ${id}` });
  await signInBrowser(context, user.api);
  const [one, two] = [await context.newPage(), await context.newPage()];
  await one.goto('/');
  await two.goto('/');
  const a = new Sidebar(one);
  const b = new Sidebar(two);
  await expect(b.row('Tab first')).toBeVisible();
  // The stream is open once the page has hydrated and connected; a no-op change proves it.
  await expect(async () => {
    await mutate(user.api, 'session.update', { id: 'third', unread: true });
    await expect(b.row('Tab third').getByRole('img', { name: 'Unread' })).toBeVisible({ timeout: 500 });
  }).toPass();
  await expect(a.row('Tab third').getByRole('img', { name: 'Unread' })).toBeVisible();
  await two.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  await a.rename('Tab first', 'Renamed in tab one');
  await expect(b.row('Renamed in tab one')).toBeVisible(LIVE);

  await a.choose('Tab second', 'Pin');
  await expect(b.heading('Pinned')).toBeVisible(LIVE);
  await expect.poll(async () => (await b.titles())[0], LIVE).toBe('Tab second');

  await a.choose('Tab third', 'Archive');
  await expect(b.row('Tab third')).toHaveCount(0, LIVE);

  // A delete waits out its Undo (5 s) before it happens; then the other tab follows within the second.
  await a.delete('Renamed in tab one');
  await expect(b.row('Renamed in tab one')).toHaveCount(0, { timeout: 5_000 + LIVE.timeout + 500 });
  expect(await two.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
});

test('two users never see each other’s sessions, live or on load', async ({ browser, adminApi, user }) => {
  const other = await createUser(adminApi, { label: 'other' });
  await mutate(user.api, 'session.create', { id: 'mine', title: 'Mine only' });
  await mutate(other.api, 'session.create', { id: 'theirs', title: 'Theirs only' });
  const [mineContext, theirContext] = [await browser.newContext(), await browser.newContext()];
  await signInBrowser(mineContext, user.api);
  await signInBrowser(theirContext, other.api);
  const mine = new Sidebar(await mineContext.newPage());
  const theirs = new Sidebar(await theirContext.newPage());
  await mine.page.goto('/');
  await theirs.page.goto('/');
  await expect(mine.row('Mine only')).toBeVisible();
  await expect(theirs.row('Theirs only')).toBeVisible();
  await expect(mine.row('Theirs only')).toHaveCount(0);
  await expect(theirs.row('Mine only')).toHaveCount(0);

  // The same session id in both stores stays two sessions.
  await mutate(other.api, 'session.create', { id: 'mine', title: 'Same id, other user' });
  await mutate(user.api, 'session.update', { id: 'mine', title: 'Mine renamed' });
  await expect(mine.row('Mine renamed')).toBeVisible();
  await expect(theirs.row('Same id, other user')).toBeVisible();
  await expect(theirs.row('Mine renamed')).toHaveCount(0);
  await expect(mine.row('Same id, other user')).toHaveCount(0);
  await mineContext.close();
  await theirContext.close();
  await other.api.dispose();
});

test('an agent writing with a token while the page is open: the row appears and moves up', async ({ page, context, user }) => {
  await mutate(user.api, 'session.create', { id: 'older', title: 'Older session' });
  await mutate(user.api, 'message.append', { sessionId: 'older', message: { role: 'user', content: 'old news' } });
  await signInBrowser(context, user.api);
  await page.goto('/');
  const sidebar = new Sidebar(page);
  await expect(sidebar.row('Older session')).toBeVisible();
  const { token } = await createToken(user.api, 'agent');
  const agent = bearer(token);

  await expect(async () => {
    await mutate(user.api, 'session.update', { id: 'older', unread: true });
    await expect(sidebar.row('Older session').getByRole('img', { name: 'Unread' })).toBeVisible({ timeout: 500 });
  }).toPass();

  expect((await mutate(user.api, 'session.create', { id: 'agent-run' }, agent)).status).toBe(200);
  await expect(sidebar.row('Untitled session')).toBeVisible(LIVE);
  await mutate(user.api, 'message.append', { sessionId: 'agent-run', message: { role: 'user', content: 'Agent asks a question' } }, agent);
  await expect(sidebar.row('Agent asks a question')).toBeVisible(LIVE);
  expect(await sidebar.titles()).toEqual(['Agent asks a question', 'Older session']);

  // An append to the older one moves it back to the top.
  await mutate(user.api, 'message.append', { sessionId: 'older', message: { role: 'user', content: 'new news' } }, agent);
  await expect.poll(() => sidebar.titles(), LIVE).toEqual(['Older session', 'Agent asks a question']);
  await mutate(user.api, 'turn.begin', { sessionId: 'agent-run' }, agent);
  await expect(sidebar.row('Agent asks a question').getByRole('img', { name: 'Running' })).toBeVisible(LIVE);
  await mutate(user.api, 'turn.finalize', { sessionId: 'agent-run' }, agent);
  // (the model may retitle it after its first turn, so the marker is looked for in the whole list)
  await expect(sidebar.nav.getByRole('img', { name: 'Running' })).toHaveCount(0, LIVE);
});
