import { captureViews, expect, mutate, query, signInBrowser, test } from '../fixtures';
import { ChatsPage } from '../pages/chats';
import { Sidebar } from '../pages/sidebar';

async function seed(api: Parameters<typeof mutate>[0], ids: string[]): Promise<void> {
  for (const id of ids) {
    await mutate(api, 'session.create', { id, title: `Chat ${id}` });
    await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content: `about ${id}` } });
  }
}

test('empty Chats page says how an agent writes a first session', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  const chats = new ChatsPage(page);
  await chats.goto();
  await expect(chats.main.getByRole('heading', { name: 'No sessions yet' })).toBeVisible();
  const origin = new URL(page.url()).origin;
  await expect(chats.main.getByText(`${origin}/api/trpc/session.create`)).toBeVisible();
  await expect(chats.main.getByText(/message\.append/)).toBeVisible();
  await captureViews(page, 'chats-empty');
});

test('search and scope live in the URL; tabs switch without a blank list', async ({ page, context, user }) => {
  await seed(user.api, ['apple', 'banana', 'cherry', 'apricot']);
  await mutate(user.api, 'session.setArchived', { id: 'banana', archived: true });
  await mutate(user.api, 'session.setArchived', { id: 'apricot', archived: true });
  await signInBrowser(context, user.api);
  const chats = new ChatsPage(page);
  await chats.goto();
  await expect.poll(() => chats.titles()).toEqual(['Chat cherry', 'Chat apple']);
  await captureViews(page, 'chats');

  // The other scopes are already in the cache: no request when switching.
  const requests: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/trpc/session.list')) requests.push(request.url());
  });
  await chats.tab('Archived').click();
  await expect(page).toHaveURL(/\/chats\?scope=archived$/);
  expect(await chats.titles()).toEqual(['Chat apricot', 'Chat banana']);
  await chats.tab('All').click();
  expect(await chats.titles()).toEqual(['Chat apricot', 'Chat cherry', 'Chat banana', 'Chat apple']);
  expect(requests).toEqual([]);

  await chats.search.fill('ap');
  await expect(page).toHaveURL(/\/chats\?scope=all&q=ap$/);
  await expect.poll(() => chats.titles()).toEqual(['Chat apricot', 'Chat apple']);
  await chats.search.fill('nothing like it');
  await expect(chats.main.getByText('match “nothing like it”')).toBeVisible();

  // A linked view opens as it was.
  await page.goto('/chats?scope=archived&q=ban');
  await expect(chats.tab('Archived')).toHaveAttribute('aria-selected', 'true');
  await expect(chats.search).toHaveValue('ban');
  expect(await chats.titles()).toEqual(['Chat banana']);
});

test('bulk archive, unarchive, mark read and delete', async ({ page, context, user }) => {
  await seed(user.api, ['b1', 'b2', 'b3', 'b4']);
  for (const id of ['b1', 'b2', 'b3', 'b4']) await mutate(user.api, 'session.update', { id, unread: true });
  await signInBrowser(context, user.api);
  const chats = new ChatsPage(page);
  const sidebar = new Sidebar(page);
  await chats.goto();
  await expect.poll(() => chats.titles()).toEqual(['Chat b4', 'Chat b3', 'Chat b2', 'Chat b1']);

  await chats.checkbox('Chat b1').check();
  await chats.checkbox('Chat b2').check();
  await chats.bulk('Mark selected read').click();
  await expect(chats.row('Chat b1').getByRole('img', { name: 'Unread' })).toHaveCount(0);
  await expect(chats.row('Chat b3').getByRole('img', { name: 'Unread' })).toBeVisible();
  await expect.poll(async () => (await query<{ unread: boolean }>(user.api, 'session.get', { id: 'b2' })).data.unread).toBe(false);

  await chats.checkbox('Chat b1').check();
  await chats.checkbox('Chat b3').check();
  await chats.bulk('Archive selected').click();
  await expect.poll(() => chats.titles()).toEqual(['Chat b4', 'Chat b2']);
  await expect(sidebar.row('Chat b3')).toHaveCount(0);

  await chats.tab('Archived').click();
  await expect.poll(() => chats.titles()).toEqual(['Chat b3', 'Chat b1']);
  await chats.checkbox('Chat b3').check();
  await chats.bulk('Unarchive selected').click();
  await expect.poll(() => chats.titles()).toEqual(['Chat b1']);
  await expect(sidebar.row('Chat b3')).toBeVisible();

  await chats.tab('All').click();
  await chats.checkbox('Chat b4').check();
  await chats.checkbox('Chat b1').check();
  await chats.bulk('Delete selected').click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('Delete 2 sessions?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect.poll(() => chats.titles()).toEqual(['Chat b3', 'Chat b2']);
  await expect.poll(async () => (await query(user.api, 'session.get', { id: 'b1' })).status).toBe(404);
  expect((await query(user.api, 'session.get', { id: 'b4' })).status).toBe(404);
});
