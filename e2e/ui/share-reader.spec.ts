import { captureViews, expect, mutate, signInBrowser, test, type TestUser } from '../fixtures';
import { SharedLinkPage } from '../pages/shared-link';

/** A session with one turn whose answer called a tool on a path of the agent's machine. */
async function seedWithToolCall(api: TestUser['api'], id: string): Promise<void> {
  expect((await mutate(api, 'session.create', { id, title: `Shared ${id}` })).status).toBe(200);
  await mutate(api, 'turn.begin', { sessionId: id });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content: 'What is in my notes?' } });
  const call = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'Let me read them.' } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'tool', content: 'buy seeds', calledBy: call.data.id, name: 'read_file', input: { path: '/home/alice/notes.txt' } } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'Your notes say: buy seeds.' } });
  expect((await mutate(api, 'turn.finalize', { sessionId: id })).status).toBe(200);
}

test('a share link opened signed out says on the sign-in page that it leads to a shared conversation, and comes back to it', async ({ browser, user }) => {
  await seedWithToolCall(user.api, 'reader-signin');
  const created = await mutate<{ id: string; path: string }>(user.api, 'share.create', { sessionId: 'reader-signin' });
  expect(created.status).toBe(200);
  const reader = await browser.newContext();
  const link = new SharedLinkPage(await reader.newPage());
  await link.goto(`/s/${created.data.id}`);
  await expect(link.page).toHaveURL(/\/signin\?callbackUrl=%2Fs%2F/);
  await expect(link.signInNote).toContainText('This link leads to a conversation someone shared');
  await captureViews(link.page, 'h31a-signin-shared-link');
  // Without a share link in the callback the sign-in page says nothing of one.
  await link.page.goto('/signin');
  await expect(link.signInNote).toHaveCount(0);
  await reader.close();
});

test('a revoked link: its 404 has a way back', async ({ page, context, user, sharedLinkPage }) => {
  await seedWithToolCall(user.api, 'reader-revoked');
  const created = await mutate<{ id: string }>(user.api, 'share.create', { sessionId: 'reader-revoked' });
  expect((await mutate(user.api, 'share.revoke', { id: created.data.id })).status).toBe(200);
  await signInBrowser(context, user.api);
  const answer = await sharedLinkPage.goto(`/s/${created.data.id}`);
  expect(answer?.status()).toBe(404);
  await expect(sharedLinkPage.notFoundHeading).toBeVisible();
  await captureViews(page, 'h31a-share-404');
  await sharedLinkPage.wayBack.click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: 'New chat' })).toBeVisible();
});

test('the Share dialog says what shown tool calls carry: absolute paths of the agent\'s machine', async ({ page, sessionPage, context, user }) => {
  await seedWithToolCall(user.api, 'reader-dialog');
  await signInBrowser(context, user.api);
  await sessionPage.goto('reader-dialog');
  await expect(page).toHaveTitle('Shared reader-dialog · Entity Memory');
  const dialog = (await sessionPage.openShareDialog()).root;
  // No promise about files the shown tool calls would break.
  await expect(dialog).not.toContainText('files on the server');
  const showToolCalls = dialog.getByRole('checkbox', { name: 'Show tool calls' });
  await expect(showToolCalls).toBeChecked();
  await expect(showToolCalls).toHaveAccessibleDescription(/absolute paths of the agent's machine/);
  await captureViews(page, 'h31a-share-dialog');
  await dialog.getByRole('button', { name: 'Create link', exact: true }).click();
  const url = await dialog.getByRole('textbox', { name: 'Share link' }).inputValue();
  // What the dialog says is what the link shows: the path of the agent's machine, in the tool call.
  await page.goto(url);
  await expect(page.getByRole('main')).toContainText('/home/alice/notes.txt');
});
