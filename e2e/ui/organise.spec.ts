import { captureViews, createUser, expect, mutate, query, signInBrowser, test } from '../fixtures';
import { ChatsPage } from '../pages/chats';
import { Sidebar } from '../pages/sidebar';
import { Tags } from '../pages/tags';

// A second tab follows within a second (DESIGN §7); a little more for the tag counts' refetch.
const LIVE = { timeout: 2_000 };

test('tags from the row menu, the session header and in bulk; all-of, any-of and untagged; state; tag: in the palette; each live in a second tab', async ({ context, user }) => {
  // Many steps, each waiting on the browser: more than the default minute on a shared machine.
  test.setTimeout(180_000);
  const titles = { alpha: 'Alpha plan', beta: 'Beta fix', gamma: 'Gamma sketch', delta: 'Delta idle' };
  for (const [id, title] of Object.entries(titles)) await mutate(user.api, 'session.create', { id, title });
  await signInBrowser(context, user.api);
  const [one, two] = [await context.newPage(), await context.newPage()];
  const chats = new ChatsPage(one);
  const tags = new Tags(one);
  const otherTab = new Sidebar(two);
  const otherTags = new Tags(two);
  await chats.goto();
  await two.goto('/');
  await expect(otherTab.row(titles.alpha)).toBeVisible();
  // The stream is open once the page has hydrated and connected; a no-op change proves it.
  await expect(async () => {
    await mutate(user.api, 'session.update', { id: 'delta', unread: true });
    await expect(otherTab.row(titles.delta).getByRole('img', { name: 'Unread' })).toBeVisible({ timeout: 500 });
  }).toPass();

  // 1. The row menu: Tags… → Edit tags.
  await chats.choose(titles.alpha, 'Tags…');
  await tags.addNew('bug');
  await tags.addNew('ui');
  await tags.done();
  await expect.poll(() => tags.ofRow(chats.main, titles.alpha)).toEqual(['bug', 'ui']);
  await expect.poll(() => otherTags.ofRow(otherTab.nav, titles.alpha), LIVE).toEqual(['bug', 'ui']);

  // 2. The session header's Tags button.
  await one.goto('/sessions/beta');
  await one.getByRole('main').getByRole('button', { name: 'Tags', exact: true }).click();
  await tags.dialog.getByRole('checkbox', { name: 'bug', exact: true }).check();
  await expect(tags.dialog.getByRole('checkbox', { name: 'bug', exact: true })).toBeChecked();
  await tags.done();
  await expect(one.getByRole('main').getByRole('list', { name: 'Tags' }).getByRole('listitem')).toHaveText(['bug']);
  await expect.poll(() => otherTags.ofRow(otherTab.nav, titles.beta), LIVE).toEqual(['bug']);

  // 3. In bulk on the Chats page.
  await chats.goto();
  await chats.checkbox(titles.gamma).check();
  await chats.main.getByRole('button', { name: 'Tag selected' }).click();
  const bulk = one.getByRole('dialog', { name: 'Tag selected sessions' });
  await bulk.getByRole('textbox', { name: 'Tag' }).fill('ui');
  await bulk.getByRole('button', { name: 'Add tag' }).click();
  await expect.poll(() => tags.ofRow(chats.main, titles.gamma)).toEqual(['ui']);
  await expect.poll(() => otherTags.ofRow(otherTab.nav, titles.gamma), LIVE).toEqual(['ui']);
  // The sidebar's tag list counts them, live in the other tab.
  await expect(otherTab.nav.getByRole('link', { name: 'bug, 2 sessions' })).toBeVisible(LIVE);
  await expect(otherTab.nav.getByRole('link', { name: 'ui, 2 sessions' })).toBeVisible(LIVE);

  // State from the row menu, shown on the row in the other tab.
  await tags.rowBox(chats.main, titles.delta).hover();
  await chats.main.getByRole('button', { name: `Options for ${titles.delta}`, exact: true }).click();
  // The submenu opens from the keyboard, as a person without a mouse opens it.
  await one.getByRole('menuitem', { name: 'Set state' }).press('ArrowRight');
  await one.getByRole('menuitemradio', { name: 'Needs review' }).press('Enter');
  await expect(otherTags.rowBox(otherTab.nav, titles.delta).getByText('Needs review')).toBeVisible(LIVE);

  // Filters: all of two tags, any of them, untagged.
  const listed = async () => (await chats.titles()).sort();
  const group = tags.filterGroup();
  await group.getByRole('checkbox', { name: 'bug', exact: true }).check();
  await group.getByRole('checkbox', { name: 'ui', exact: true }).check();
  await expect.poll(listed).toEqual([titles.alpha]);
  await group.getByRole('combobox', { name: 'Match' }).selectOption('any');
  await expect.poll(listed).toEqual([titles.alpha, titles.beta, titles.gamma]);
  await group.getByRole('checkbox', { name: 'bug', exact: true }).uncheck();
  await group.getByRole('checkbox', { name: 'ui', exact: true }).uncheck();
  await group.getByRole('checkbox', { name: 'Untagged' }).check();
  await expect.poll(listed).toEqual([titles.delta]);
  await group.getByRole('checkbox', { name: 'Untagged' }).uncheck();
  await chats.main.getByRole('combobox', { name: 'State' }).selectOption('review');
  await expect.poll(listed).toEqual([titles.delta]);
  // tag: in the Chats search
  await chats.main.getByRole('combobox', { name: 'State' }).selectOption('');
  await chats.search.fill('tag:bug');
  await expect.poll(listed).toEqual([titles.alpha, titles.beta]);
  await captureViews(one, 'chats-tags');

  // tag: in the palette: the sessions it names, each opening its session.
  await one.keyboard.press('Control+k');
  const palette = one.getByRole('dialog', { name: 'Search' });
  await palette.getByRole('combobox', { name: 'Search messages' }).fill('tag:ui');
  await expect(palette.getByRole('option')).toHaveCount(2);
  await palette.getByRole('option', { name: new RegExp(titles.gamma) }).click();
  await expect(one).toHaveURL(/\/sessions\/gamma$/);
});

test('another user sees none of a user’s tags, states or counts', async ({ browser, adminApi, user }) => {
  await mutate(user.api, 'session.create', { id: 'tagged', title: 'Tagged one' });
  await mutate(user.api, 'session.update', { id: 'tagged', tags: ['secret-tag'], state: 'review' });
  const other = await createUser(adminApi, { label: 'other' });
  await mutate(other.api, 'session.create', { id: 'tagged', title: 'Same id, theirs' });
  expect((await query<unknown[]>(other.api, 'tag.list')).data).toEqual([]);
  expect((await query<{ tags: string[]; state: null }>(other.api, 'session.get', { id: 'tagged' })).data).toMatchObject({ tags: [], state: null });
  expect((await query<{ rows: unknown[] }>(other.api, 'session.list', { q: 'tag:secret-tag' })).data.rows).toEqual([]);
  // Their tag.edit on the other user's session id changes only their own session of that id.
  await mutate(other.api, 'tag.edit', { id: 'tagged', add: ['theirs'] });
  expect((await query<{ tags: string[] }>(user.api, 'session.get', { id: 'tagged' })).data.tags).toEqual(['secret-tag']);
  const otherContext = await browser.newContext();
  await signInBrowser(otherContext, other.api);
  const stranger = await otherContext.newPage();
  await stranger.goto('/chats');
  const group = stranger.getByRole('main').getByRole('group', { name: 'Filter by tag' });
  await expect(group.getByRole('checkbox', { name: 'theirs', exact: true })).toBeVisible();
  await expect(group.getByRole('checkbox', { name: 'secret-tag', exact: true })).toHaveCount(0);
  await expect(new Sidebar(stranger).nav.getByRole('link', { name: /secret-tag/ })).toHaveCount(0);
  await otherContext.close();
  await other.api.dispose();
});
