import { bearer, expect, newApiContext, query, signInBrowser, test } from '../fixtures';

// Issue 36 item 3 (DESIGN §7 "team (§17)"): the token form's group "Scopes", a checkbox per scope,
// and the list saying each token's scopes, project and last use.

test('Settings makes a read-only token: the Scopes group, the list showing its scope, and the token refused a write', async ({ browser, user }) => {
  const context = await browser.newContext();
  await signInBrowser(context, user.api);
  const page = await context.newPage();
  await page.goto('/settings');
  const scopes = page.getByRole('group', { name: 'Scopes' });
  const checkbox = (scope: string) => scopes.getByRole('checkbox', { name: new RegExp(`^${scope} `) });
  for (const scope of ['read', 'write', 'proxy', 'import', 'mcp']) await expect(checkbox(scope)).toBeVisible();
  // The default: read and write.
  await expect(checkbox('read')).toBeChecked();
  await expect(checkbox('write')).toBeChecked();
  await expect(checkbox('proxy')).not.toBeChecked();

  await checkbox('write').uncheck();
  await page.getByLabel('Token name').fill('reader');
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').textContent())!;
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'reader', exact: true }) });
  await expect(row.getByRole('cell', { name: 'read', exact: true })).toBeVisible();
  await expect(row.getByRole('cell', { name: 'every project', exact: true })).toBeVisible();
  await expect(row.getByRole('cell', { name: 'never', exact: true }).first()).toBeVisible();

  const api = await newApiContext(bearer(token));
  expect((await query(api, 'session.list')).status).toBe(200);
  const write = await api.post('/api/trpc/session.create', { headers: { 'content-type': 'application/json' }, data: '{}' });
  expect(write.status()).toBe(403);
  expect(await write.text()).toContain('lacks the \\"write\\" scope');

  // Its use shows in the list.
  await page.reload();
  await expect(page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'reader', exact: true }) }).getByRole('cell', { name: 'never', exact: true })).toHaveCount(1);
  await api.dispose();
  await context.close();
});
