import { captureViews, expect, mutate, query, signInBrowser, test } from '../fixtures';
import { ChatsPage } from '../pages/chats';
import { Sidebar } from '../pages/sidebar';

test('the sidebar lists every session with its display rules, markers and project', async ({ page, context, user }) => {
  await mutate(user.api, 'session.create', { id: 'named', title: 'Named session' });
  await mutate(user.api, 'session.create', { id: 'untitled-with-preview', title: 'New conversation' });
  await mutate(user.api, 'message.append', { sessionId: 'untitled-with-preview', message: { role: 'user', content: 'What is in the preview?' } });
  await mutate(user.api, 'session.create', { id: 'empty-one' });
  await mutate(user.api, 'session.create', { id: 'from-telegram', title: 'Hello bot', channel: 'telegram' });
  await mutate(user.api, 'session.update', { id: 'named', unread: true, status: 'running' });
  await mutate(user.api, 'session.create', { id: 'pinned-one', title: 'Pinned one' });
  await mutate(user.api, 'session.update', { id: 'pinned-one', pinned: true });

  await signInBrowser(context, user.api);
  await page.goto('/');
  const sidebar = new Sidebar(page);
  await expect(sidebar.row('Named session')).toBeVisible();
  await expect(sidebar.row('What is in the preview?')).toBeVisible();
  await expect(sidebar.row('Untitled session')).toBeVisible();
  await expect(sidebar.row('[telegram] Hello bot')).toBeVisible();
  await expect(sidebar.row('Named session').getByRole('img', { name: 'Unread' })).toBeVisible();
  await expect(sidebar.row('Named session').getByRole('img', { name: 'Running' })).toBeVisible();
  await expect(sidebar.row('Hello bot')).toHaveCount(0);
  await expect(sidebar.row('Named session')).toContainText('Home');
  await expect(sidebar.row('Named session')).toHaveAttribute('href', '/sessions/named');

  // Pinned first, then today's by recency (newest first).
  await expect(sidebar.heading('Pinned')).toBeVisible();
  await expect(sidebar.heading('Today')).toBeVisible();
  expect(await sidebar.titles()).toEqual(['Pinned one', '[telegram] Hello bot', 'Untitled session', 'What is in the preview?', 'Named session']);
  await captureViews(page, 'sidebar');
});

test('the row menu renames, pins, marks, regenerates and deletes, from the button and by right-click', async ({ page, context, user }) => {
  await mutate(user.api, 'session.create', { id: 'alpha', title: 'Alpha' });
  await mutate(user.api, 'message.append', { sessionId: 'alpha', message: { role: 'user', content: 'Tell me about alpha particles' } });
  await mutate(user.api, 'session.create', { id: 'beta', title: 'Beta' });
  await signInBrowser(context, user.api);
  await page.goto('/');
  const sidebar = new Sidebar(page);

  // Escape cancels, Enter saves.
  await sidebar.choose('Alpha', 'Rename');
  const field = sidebar.nav.getByRole('textbox', { name: 'Session title' });
  await expect(field).toBeFocused();
  await field.fill('Not kept');
  await field.press('Escape');
  await expect(sidebar.row('Alpha')).toBeVisible();
  await sidebar.rename('Alpha', 'Alpha renamed');
  await expect(sidebar.row('Alpha renamed')).toBeVisible();
  // (the row changes at once; the server's answer follows)
  await expect.poll(async () => (await query<{ title: string }>(user.api, 'session.get', { id: 'alpha' })).data.title).toBe('Alpha renamed');

  // Right-click opens the same menu.
  const menu = await sidebar.openContextMenu('Beta');
  await expect(menu.getByRole('menuitem')).toHaveText(['Rename', 'Regenerate title', 'Pin', 'Mark as unread', 'Archive', 'Tags…', 'Set state', 'Share', 'Export as Markdown', 'Export as JSON', 'Download git bundle', 'Export attribution (Agent Trace)', 'Delete']);
  await menu.getByRole('menuitem', { name: 'Pin' }).click();
  await expect(sidebar.heading('Pinned')).toBeVisible();
  expect((await sidebar.titles())[0]).toBe('Beta');
  await sidebar.choose('Beta', 'Unpin');
  await expect(sidebar.heading('Pinned')).toHaveCount(0);

  await sidebar.choose('Beta', 'Mark as unread');
  await expect(sidebar.row('Beta').getByRole('img', { name: 'Unread' })).toBeVisible();
  await sidebar.choose('Beta', 'Mark as read');
  await expect(sidebar.row('Beta').getByRole('img', { name: 'Unread' })).toHaveCount(0);

  // The e2e server has the project's loopback model: regenerate gives the model's title.
  await sidebar.choose('Alpha renamed', 'Regenerate title');
  await expect(sidebar.row('Tell Me About Alpha')).toBeVisible();
  await expect(page.getByText('New title: Tell Me About Alpha')).toBeVisible();

  // Delete asks first; Cancel keeps it.
  await sidebar.choose('Beta', 'Delete');
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('Beta');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(sidebar.row('Beta')).toBeVisible();
  await sidebar.delete('Beta');
  await expect(sidebar.row('Beta')).toHaveCount(0);
  // Deleted once the Undo of its toast has run out.
  await expect.poll(async () => (await mutate(user.api, 'session.update', { id: 'beta', pinned: false })).status, { timeout: 15_000 }).toBe(404);
});

test('a change the server refuses is undone with a visible error', async ({ page, context, user }) => {
  await mutate(user.api, 'session.create', { id: 'doomed', title: 'Doomed' });
  await signInBrowser(context, user.api);
  // No event stream for this tab, so it does not hear of the delete below before it acts.
  await page.route('**/api/events*', (route) => route.abort());
  await page.goto('/');
  const sidebar = new Sidebar(page);
  await expect(sidebar.row('Doomed')).toBeVisible();
  await mutate(user.api, 'session.delete', { id: 'doomed' });

  await sidebar.rename('Doomed', 'Saved?');
  await expect(page.getByText('Could not rename “Doomed”: the session no longer exists')).toBeVisible();
  await expect(sidebar.row('Saved?')).toHaveCount(0);
  await expect(sidebar.row('Doomed')).toHaveCount(0);
});

test('archive from the sidebar, unarchive from the Chats page: back at its old place', async ({ page, context, user }) => {
  for (const id of ['one', 'two', 'three']) {
    await mutate(user.api, 'session.create', { id, title: `Session ${id}` });
    await mutate(user.api, 'message.append', { sessionId: id, message: { role: 'user', content: `hello ${id}` } });
  }
  await signInBrowser(context, user.api);
  await page.goto('/');
  const sidebar = new Sidebar(page);
  const order = ['Session three', 'Session two', 'Session one'];
  await expect.poll(() => sidebar.titles()).toEqual(order);

  await sidebar.choose('Session two', 'Archive');
  await expect.poll(() => sidebar.titles()).toEqual(['Session three', 'Session one']);

  const chats = new ChatsPage(page);
  await chats.goto('?scope=archived');
  await expect(chats.tab('Archived')).toHaveAttribute('aria-selected', 'true');
  await expect(chats.row('Session two')).toBeVisible();
  await chats.choose('Session two', 'Unarchive');
  await expect(chats.row('Session two')).toHaveCount(0);
  await expect.poll(() => sidebar.titles()).toEqual(order);
  await chats.tab('Active').click();
  await expect.poll(() => chats.titles()).toEqual(order);
});
