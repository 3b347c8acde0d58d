import type { Page } from '@playwright/test';
import { captureViews, expect, query, signInBrowser, test, type SessionRow } from '../fixtures';
import { SessionPage } from '../pages/session';

/** Sends the first message from the new-chat page and waits for its session page. */
async function startChat(page: Page, text: string): Promise<string> {
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page).toHaveURL(/\/sessions\/[A-Za-z0-9_-]+$/);
  return new URL(page.url()).pathname.split('/').pop()!;
}

test('the reply streams in progressively as Markdown, then stands as the assistant message', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await startChat(page, 'Tell me a long story [[words:80]] [[delay:40]]');

  const streaming = page.getByRole('region', { name: 'Reply in progress' });
  await expect(streaming).toContainText('You said');
  const early = (await streaming.textContent())!.length;
  await expect.poll(async () => ((await streaming.textContent().catch(() => '')) ?? '').length).toBeGreaterThan(early);
  await captureViews(page, 'chat-streaming');

  await expect(streaming).toHaveCount(0, { timeout: 20_000 });
  await expect(session.message('Assistant')).toContainText('You said: Tell me a long story');
  await expect(session.message('User')).toContainText('Tell me a long story');
});

test('Stop cancels the turn and keeps what arrived', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  const sessionId = await startChat(page, 'Talk for a while [[words:600]] [[delay:60]]');
  await expect(page.getByRole('region', { name: 'Reply in progress' })).toContainText('You said');
  await page.getByRole('button', { name: 'Stop' }).click();

  await expect(page.getByRole('status').filter({ hasText: 'Stopped' })).toBeVisible();
  await expect.poll(async () => (await query<SessionRow>(user.api, 'session.get', { id: sessionId })).data.status).toBe('cancelled');
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeEnabled();
});

test('a model failure shows a failed turn and keeps the user message', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  const sessionId = await startChat(page, 'This one breaks [[fail]]');

  await expect(page.getByRole('status', { name: 'Turn failed' })).toBeVisible();
  await expect(session.message('User')).toContainText('This one breaks');
  expect((await query<SessionRow>(user.api, 'session.get', { id: sessionId })).data.status).toBe('failed');
  await captureViews(page, 'chat-failed');
});

test('retry and edit-and-resend make branches the switcher moves between', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await startChat(page, 'First question');
  const reply = session.message('Assistant');
  await expect(reply).toContainText('You said: First question');

  // Retry: a second reply beside the first.
  await reply.getByRole('button', { name: 'Retry' }).click();
  await expect(session.fork(2, 2)).toBeVisible({ timeout: 20_000 });
  await session.previousBranch(session.fork(2, 2));
  await expect(session.fork(1, 2)).toBeVisible();

  // Edit the question: a new user message with the same parent, answered on its own branch.
  const question = session.message('User');
  await question.getByRole('button', { name: 'Edit' }).click();
  await question.getByRole('textbox', { name: 'Edited message' }).fill('Second question');
  await question.getByRole('button', { name: 'Send edit' }).click();
  await expect(session.message('User')).toContainText('Second question', { timeout: 20_000 });
  await expect(session.message('Assistant')).toContainText('You said: Second question', { timeout: 20_000 });
  const userFork = session.message('User').getByRole('group', { name: 'Branch 2 of 2' });
  await expect(userFork).toBeVisible();
  await userFork.getByRole('button', { name: 'Previous branch' }).click();
  await expect(session.message('User')).toContainText('First question');
  await captureViews(page, 'chat-branches');
});
