import { realpathSync } from 'node:fs';
import { captureViews, createUser, expect, makeProjectRepo, mutate, query, signInBrowser, test, type ProjectSummary, type TestUser } from '../fixtures';
import { BookmarksPage, SavedViews } from '../pages/bookmarks';
import { SessionPage } from '../pages/session';
import { Sidebar } from '../pages/sidebar';

// A second tab follows within a second (DESIGN §7); a little more for a count's refetch.
const LIVE = { timeout: 2_000 };

/** A session of one finished turn, by the API: its question's and answer's ids. */
async function oneTurn(api: TestUser['api'], id: string, title: string, question: string, answer: string): Promise<[string, string]> {
  await mutate(api, 'session.create', { id, title });
  expect((await mutate(api, 'turn.begin', { sessionId: id })).status).toBe(200);
  const asked = (await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'user', content: question } })).data.id;
  const answered = (await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: answer } })).data.id;
  expect((await mutate(api, 'turn.finalize', { sessionId: id })).status).toBe(200);
  return [asked, answered];
}

test('bookmarks in two sessions: live in a second tab, listed newest first on the Bookmarks page, each opening its session at the message; a note is Markdown', async ({ context, user, bookmarksPage, sessionPage }) => {
  test.setTimeout(180_000);
  const [, firstAnswer] = await oneTurn(user.api, 'first', 'First session', 'what is an ocelot', 'a wild cat of the Americas');
  const [secondQuestion] = await oneTurn(user.api, 'second', 'Second session', 'where do quetzals live', 'in cloud forests');
  await signInBrowser(context, user.api);
  const one = bookmarksPage.page;
  const two = await context.newPage();
  const otherTab = new BookmarksPage(two);
  await sessionPage.goto('first');
  await new SessionPage(two).goto('first');
  // The other tab's stream is open once it has hydrated and connected; a change it shows proves it.
  const otherSidebar = new Sidebar(two);
  await expect(async () => {
    await mutate(user.api, 'session.update', { id: 'second', unread: true });
    await expect(otherSidebar.row('Second session').getByRole('img', { name: 'Unread' })).toBeVisible({ timeout: 500 });
  }).toPass();

  await bookmarksPage.bookmark(sessionPage.messageById(firstAnswer));
  await expect(otherTab.button(new SessionPage(two).messageById(firstAnswer))).toHaveAttribute('aria-pressed', 'true', LIVE);
  await sessionPage.goto('second');
  await bookmarksPage.bookmark(sessionPage.messageById(secondQuestion));

  await one.getByRole('navigation', { name: 'Sessions' }).getByRole('link', { name: 'Bookmarks', exact: true }).click();
  await expect(bookmarksPage.heading).toBeVisible();
  await expect(bookmarksPage.items).toHaveCount(2);
  await expect(bookmarksPage.items.nth(0)).toContainText('Second session');
  await expect(bookmarksPage.items.nth(0)).toContainText('where do quetzals live');
  await expect(bookmarksPage.items.nth(1)).toContainText('First session');
  await expect(bookmarksPage.items.nth(1)).toContainText('a wild cat of the Americas');
  // the other tab's Bookmarks page too
  await otherTab.goto();
  await expect(otherTab.items).toHaveCount(2);
  await captureViews(one, 'bookmarks');

  // Each opens its session at the message (marked current).
  await bookmarksPage.items.nth(1).getByRole('link').click();
  await expect(one).toHaveURL(new RegExp(`/sessions/first\\?m=${firstAnswer}$`));
  await sessionPage.opened();
  await expect(sessionPage.messageById(firstAnswer)).toHaveAttribute('aria-current', 'true');

  // Removed from the session page: gone from the other tab's list, live.
  await bookmarksPage.button(sessionPage.messageById(firstAnswer)).click();
  await expect(bookmarksPage.button(sessionPage.messageById(firstAnswer))).toHaveAttribute('aria-pressed', 'false');
  await expect(otherTab.items).toHaveCount(1, LIVE);

  // A note is Markdown, rendered as a message is: bold is <strong>, a script tag stays text and never runs.
  const answer = sessionPage.messageById(firstAnswer);
  await answer.getByRole('button', { name: 'Add note' }).click();
  await answer.getByRole('textbox', { name: 'Note (Markdown)' }).fill('Keep: the **ocelot** range <script>window.noted=1</script>');
  await answer.getByRole('button', { name: 'Save note' }).click();
  const note = answer.getByRole('region', { name: 'Note' });
  await expect(note.locator('strong')).toHaveText('ocelot');
  await expect(note).toContainText('<script>window.noted=1</script>');
  expect(await note.locator('script').count()).toBe(0);
  expect(await one.evaluate(() => (window as unknown as { noted?: number }).noted)).toBeUndefined();
});

test('a saved view of two tags any-of: listed under Views with a count that follows a third session tagged, opens its filter, a taken name is refused, deleted from the sidebar', async ({ page, context, user, chatsPage, savedViews }) => {
  test.setTimeout(180_000);
  for (const [id, title] of [['alpha', 'Alpha plan'], ['beta', 'Beta fix'], ['gamma', 'Gamma sketch']]) await mutate(user.api, 'session.create', { id, title });
  await mutate(user.api, 'tag.edit', { id: 'alpha', add: ['bug'] });
  await mutate(user.api, 'tag.edit', { id: 'beta', add: ['ui'] });
  await signInBrowser(context, user.api);
  await chatsPage.goto('?tag=bug&tag=ui&match=any');
  await expect.poll(async () => (await chatsPage.titles()).sort()).toEqual(['Alpha plan', 'Beta fix']);
  await savedViews.save('Triage');
  await expect(savedViews.dialog).toHaveCount(0);
  await expect(savedViews.link('Triage', 2)).toBeVisible();

  // a third session tagged elsewhere (the API, as an agent would): the count follows live,
  // once the stream is open (a change the sidebar shows proves it)
  await expect(async () => {
    await mutate(user.api, 'session.update', { id: 'alpha', unread: true });
    await expect(new Sidebar(page).row('Alpha plan').getByRole('img', { name: 'Unread' })).toBeVisible({ timeout: 500 });
  }).toPass();
  await mutate(user.api, 'tag.edit', { id: 'gamma', add: ['ui'] });
  await expect(savedViews.link('Triage', 3)).toBeVisible(LIVE);
  await captureViews(page, 'sidebar-views');
  // the narrow layout shows the sidebar in a drawer: its Views there too
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole('button', { name: 'Open sidebar' }).click();
  await expect(page.getByRole('dialog', { name: 'Sidebar' }).getByRole('link', { name: 'Triage, 3 sessions', exact: true })).toBeVisible();
  await captureViews(page, 'sidebar-views-drawer');
  await page.getByRole('button', { name: 'Close sidebar' }).click();
  await page.setViewportSize({ width: 1280, height: 800 });

  // the same name again, whatever its case: refused, said in the dialog, nothing saved
  await savedViews.save('triage');
  await expect(savedViews.dialog.getByRole('alert')).toContainText('exists already');
  await savedViews.dialog.getByRole('button', { name: 'Cancel' }).click();
  expect((await query<unknown[]>(user.api, 'view.list')).data).toHaveLength(1);

  // opening it applies its filter
  await chatsPage.goto();
  await savedViews.link('Triage', 3).click();
  await expect(page).toHaveURL(/\/chats\?tag=bug&tag=ui&match=any$/);
  await expect.poll(async () => (await chatsPage.titles()).sort()).toEqual(['Alpha plan', 'Beta fix', 'Gamma sketch']);

  await savedViews.delete('Triage');
  await expect(savedViews.section).toHaveCount(0);
  expect((await query<unknown[]>(user.api, 'view.list')).data).toEqual([]);
});

test('a saved view keeps the Chats project filter: counted as that project’s sessions, opened filtered', async ({ page, context, user, chatsPage, savedViews }) => {
  const dir = realpathSync(makeProjectRepo(user.id, 'views-app'));
  const project = (await mutate<ProjectSummary>(user.api, 'project.create', { path: dir, name: 'Views App' })).data;
  await mutate(user.api, 'session.create', { id: 'in-project', title: 'In the project', projectId: project.id });
  await mutate(user.api, 'session.create', { id: 'at-home', title: 'At home' });
  await signInBrowser(context, user.api);
  await chatsPage.goto();
  await expect.poll(async () => (await chatsPage.titles()).sort()).toEqual(['At home', 'In the project']);
  await page.getByRole('combobox', { name: 'Project' }).selectOption(project.id);
  await expect(page).toHaveURL(new RegExp(`[?&]project=${project.id}$`));
  await expect.poll(async () => chatsPage.titles()).toEqual(['In the project']);
  await savedViews.save('Views App work');
  await expect(savedViews.link('Views App work', 1)).toBeVisible();
  expect((await query<Array<{ filter: Record<string, unknown> }>>(user.api, 'view.list')).data[0]!.filter).toEqual({ projectId: project.id });

  await chatsPage.goto();
  await savedViews.link('Views App work', 1).click();
  await expect(page).toHaveURL(new RegExp(`/chats\\?project=${project.id}$`));
  await expect(page.getByRole('combobox', { name: 'Project' })).toHaveValue(project.id);
  await expect.poll(async () => chatsPage.titles()).toEqual(['In the project']);
});

test('another user sees none of a user’s bookmarks or views', async ({ browser, adminApi, user }) => {
  const [asked] = await oneTurn(user.api, 'mine', 'Mine', 'a private question', 'a private answer');
  expect((await mutate(user.api, 'bookmark.add', { sessionId: 'mine', messageId: asked })).status).toBe(200);
  expect((await mutate(user.api, 'view.save', { name: 'Private view', filter: { tags: ['secret'] } })).status).toBe(200);
  const other = await createUser(adminApi, { label: 'other' });
  try {
    expect((await query<unknown[]>(other.api, 'bookmark.list')).data).toEqual([]);
    expect((await query<unknown[]>(other.api, 'view.list')).data).toEqual([]);
    // their bookmark.add on this user's session id is a missing session, like one that never existed
    expect((await mutate(other.api, 'bookmark.add', { sessionId: 'mine', messageId: asked })).status).toBe(404);
    const otherContext = await browser.newContext();
    await signInBrowser(otherContext, other.api);
    const stranger = new BookmarksPage(await otherContext.newPage());
    await stranger.goto();
    await expect(stranger.main).toContainText('No bookmarks yet');
    await expect(new SavedViews(stranger.page).section).toHaveCount(0);
    await otherContext.close();
  } finally {
    await other.api.dispose();
  }
});
