import { appendMessage, captureViews, createSession, createUser, expect, getSession, query, signInBrowser, test } from '../fixtures';
import { RetentionPages } from '../pages/trash';

const DAY_MS = 86_400_000;
/** The day `days` from now, as a date field takes it: the admin's "as of" for the sweep. */
const daysOn = (days: number) => new Date(Date.now() + days * DAY_MS).toISOString().slice(0, 10);

test('retention: off, the sweep moves nothing; on, an old session goes to the Trash, and Restore gives it back whole with its search hit', async ({ adminApi, page, context, searchPalette: palette, sessionPage }) => {
  test.setTimeout(180_000);
  // An admin of its own, so the Admin page's sweep and this user's retention are this test's alone.
  const owner = await createUser(adminApi, { admin: true, label: 'retention' });
  const session = await createSession(owner.api, { title: 'Quokka plans' });
  const question = await appendMessage(owner.api, session.id, { role: 'user', content: 'the quokka relocation plan' });
  await appendMessage(owner.api, session.id, { role: 'assistant', content: 'first answer' });
  await appendMessage(owner.api, session.id, { role: 'assistant', content: 'second answer', parentId: question.id });
  const branchesBefore = (await query<unknown[]>(owner.api, 'branch.list', { sessionId: session.id })).data;
  expect(branchesBefore).toHaveLength(2);
  await signInBrowser(context, owner.api);
  const retention = new RetentionPages(page);
  await page.goto('/trash');
  await expect(retention.heading).toBeVisible();
  await palette.open();
  await palette.search('quokka');
  await expect(palette.hit(/^Quokka plans.*the quokka relocation plan$/)).toHaveCount(1);
  await page.keyboard.press('Escape');

  // Off (the default): even as of a year on, nothing is archived or trashed.
  await retention.applyAsOf(daysOn(400));
  expect((await getSession(owner.api, session.id)).archived).toBe(false);
  expect((await query<unknown[]>(owner.api, 'trash.list')).data).toEqual([]);

  // On: archived once untouched for 30 days, in the Trash once archived for 7.
  await retention.chooseOwn(30, 7);
  await retention.applyAsOf(daysOn(40));
  expect((await getSession(owner.api, session.id)).archived).toBe(true);
  await retention.applyAsOf(daysOn(50));
  expect((await query(owner.api, 'session.get', { id: session.id })).status).toBe(404);

  await page.getByRole('navigation', { name: 'Sessions' }).getByRole('link', { name: 'Trash', exact: true }).click();
  await expect(retention.heading).toBeVisible();
  const row = retention.row('Quokka plans');
  await expect(row).toBeVisible();
  await expect(row).toContainText('deleted for good');
  await captureViews(page, 'trash');

  // Out of search while trashed.
  await palette.open();
  await palette.search('quokka');
  await expect(palette.status).toHaveText('Nothing matches “quokka”.');
  await page.keyboard.press('Escape');

  await row.getByRole('button', { name: 'Restore', exact: true }).click();
  await expect(page.getByRole('main').getByRole('status')).toHaveText('Restored “Quokka plans”.');
  await expect(page.getByRole('main').getByText('The Trash is empty.')).toBeVisible();

  // Whole: both branches, every message, and its search hit again.
  expect((await query<unknown[]>(owner.api, 'branch.list', { sessionId: session.id })).data).toEqual(branchesBefore);
  await page.getByRole('link', { name: 'Open the restored session' }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${session.id}$`));
  await expect(sessionPage.page.getByRole('main').getByText('the quokka relocation plan').first()).toBeVisible();
  await palette.open();
  await palette.search('quokka');
  await expect(palette.hit(/^Quokka plans.*the quokka relocation plan$/)).toHaveCount(1);
});
