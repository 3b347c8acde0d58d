import { captureViews, expect, makeProjectRepo, mutate, query, signInBrowser, test, type SessionRow } from '../fixtures';

test('the first message sent from / creates the session, lists its preview in every tab and opens it', async ({ browser, user }) => {
  const context = await browser.newContext();
  await signInBrowser(context, user.api);
  const page = await context.newPage();
  const other = await context.newPage();
  await page.goto('/');
  await other.goto('/');
  await expect(page.getByRole('heading', { name: 'New chat', level: 1 })).toBeVisible();
  // The model's title waits, so the row shows the preview (then the truncated title) meanwhile.
  await page.getByRole('textbox', { name: 'Message' }).fill('Sketch a plan for the garden [[title-wait:4000]]');
  // A draft creates nothing.
  expect((await query<{ rows: SessionRow[] }>(user.api, 'session.list')).data.rows).toEqual([]);
  await page.getByRole('button', { name: 'Send' }).click();

  await expect(page).toHaveURL(/\/sessions\/[A-Za-z0-9_-]+$/);
  const sessionId = new URL(page.url()).pathname.split('/').pop()!;
  const rows = (await query<{ rows: SessionRow[] }>(user.api, 'session.list')).data.rows;
  expect(rows.map((row) => [row.id, row.preview])).toEqual([[sessionId, 'Sketch a plan for the garden [[title-wait:4000]]']]);
  // The sidebar of the other tab shows it without a reload (DESIGN §7 names; the sidebar is the shell's).
  await expect(other.getByRole('navigation', { name: 'Sessions' }).getByRole('link', { name: /Sketch a plan for the garden/ })).toBeVisible();
  await context.close();
});

test('an unsent draft survives a reload, with its project, and is cleared once sent', async ({ page, context, user }) => {
  makeProjectRepo(user.id, 'garden');
  expect((await mutate(user.api, 'project.create', { path: 'garden', name: 'Garden' })).status).toBe(200);
  await signInBrowser(context, user.api);
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill('half a thought');
  await page.getByRole('button', { name: 'Project: Home' }).click();
  await page.getByRole('menuitem', { name: 'Garden' }).click();
  await expect(page.getByRole('button', { name: 'Project: Garden' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('half a thought');
  await expect(page.getByRole('button', { name: 'Project: Garden' })).toBeVisible();
  await captureViews(page, 'chat-new-draft');

  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page).toHaveURL(/\/sessions\//);
  const sessionId = new URL(page.url()).pathname.split('/').pop()!;
  expect((await query<SessionRow>(user.api, 'session.get', { id: sessionId })).data.project).toBe('Garden');
  await page.goto('/');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
  await expect(page.getByRole('button', { name: 'Project: Home' })).toBeVisible();
});

test('with no model the composer says so and how to configure one', async ({ page, context, user, adminApi }) => {
  await signInBrowser(context, user.api);
  await mutate(adminApi, 'models.set', { model: 'half-configured' });
  try {
    await page.goto('/');
    // A user who is not an admin is told who can turn it on (the wording per role: chat-off-banner.spec.ts).
    const notice = page.getByRole('status', { name: 'Chat is off' });
    await expect(notice).toContainText('only an admin can set one');
    await page.getByRole('textbox', { name: 'Message' }).fill('can I still draft?');
    await expect(page.getByRole('button', { name: 'Send' })).toBeDisabled();
    await captureViews(page, 'chat-no-model');
  } finally {
    await mutate(adminApi, 'models.set', { baseUrl: null, apiKey: null, model: null, titleModel: null, detectLocal: false });
  }
  await page.reload();
  await expect(page.getByRole('status', { name: 'Chat is off' })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Message' }).fill('ready to send');
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  await captureViews(page, 'chat-new');
});

test('Settings shows the model in use; the Admin page sets one, the key shown only as set', async ({ page, context, adminApi }) => {
  await signInBrowser(context, adminApi);
  await page.goto('/settings');
  const inUse = page.getByRole('definition').filter({ hasText: 'e2e-model' }).first();
  await expect(inUse).toBeVisible();
  await page.goto('/admin');
  const form = page.getByRole('form', { name: 'Model settings' });
  try {
    await form.getByLabel('Model', { exact: true }).fill('admin-ui-model');
    await form.getByLabel('Server URL (OpenAI-compatible, …/v1)').fill('http://127.0.0.1:9/v1');
    await form.getByLabel('API key').fill('sk-ui-secret');
    await form.getByRole('button', { name: 'Save model' }).click();
    await expect(form.getByLabel('API key')).toHaveAttribute('placeholder', 'set (leave empty to keep it)');
    await expect(form.getByLabel('API key')).toHaveValue('');
    await page.reload();
    await expect(page.getByRole('form', { name: 'Model settings' }).getByLabel('Model', { exact: true })).toHaveValue('admin-ui-model');
    expect(await page.content()).not.toContain('sk-ui-secret');
    await page.goto('/settings');
    // Chat and title model both: no title model was given.
    await expect(page.getByRole('definition').filter({ hasText: 'admin-ui-model' })).toHaveCount(2);
  } finally {
    await mutate(adminApi, 'models.set', { baseUrl: null, apiKey: null, model: null, titleModel: null, detectLocal: false });
  }
});
