import type { Locator, Page } from '@playwright/test';
import { captureViews, expect, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';

/** Sends the first message from the new-chat page and waits for its session page. */
async function startChat(page: Page, text: string): Promise<void> {
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page).toHaveURL(/\/sessions\/[A-Za-z0-9_-]+$/);
}

/** Pixels between the bottom of the page's scroll area and the bottom of what it shows. */
function distanceFromEnd(page: Page): Promise<number> {
  return page.locator('main').evaluate((main) => main.scrollHeight - main.scrollTop - main.clientHeight);
}

async function textLength(locator: Locator): Promise<number> {
  return ((await locator.textContent().catch(() => '')) ?? '').length;
}

test('a 5,000-word reply streams with the composer pinned and the view following until the reader scrolls up', async ({ page, context, user }) => {
  test.setTimeout(120_000);
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await startChat(page, 'A very long answer please [[words:5000]] [[delay:3]]');

  const streaming = page.getByRole('region', { name: 'Reply in progress' });
  const stop = page.getByRole('button', { name: 'Stop' });
  const message = page.getByRole('textbox', { name: 'Message' });
  // Well past a screen of text: Stop and the message box are still on screen, at its end.
  await expect.poll(() => textLength(streaming), { timeout: 30_000 }).toBeGreaterThan(8_000);
  await expect(stop).toBeInViewport();
  await expect(message).toBeInViewport();
  expect(await page.locator('main').evaluate((main) => main.scrollHeight > main.clientHeight * 3)).toBe(true);
  // Following: the newest text is in view.
  await expect.poll(() => distanceFromEnd(page)).toBeLessThan(60);
  await captureViews(page, 'chat-stream-following');

  // The reader scrolls up: the view stays where they are, and offers the way back.
  await page.locator('main').hover();
  await page.mouse.wheel(0, -1500);
  const toBottom = page.getByRole('button', { name: 'Scroll to bottom' });
  await expect(toBottom).toBeVisible();
  const readingAt = await page.locator('main').evaluate((main) => main.scrollTop);
  const grownFrom = await textLength(streaming);
  await expect.poll(() => textLength(streaming)).toBeGreaterThan(grownFrom + 2_000);
  expect(Math.abs((await page.locator('main').evaluate((main) => main.scrollTop)) - readingAt)).toBeLessThan(5);
  await expect(stop).toBeInViewport();
  await captureViews(page, 'chat-stream-scrolled-up');

  await toBottom.click();
  await expect(toBottom).toBeHidden();
  await expect.poll(() => distanceFromEnd(page)).toBeLessThan(60);

  // The end: the reply becomes the assistant's message, still followed, the composer still pinned.
  await expect(streaming).toHaveCount(0, { timeout: 60_000 });
  const reply = session.message('Assistant');
  await expect(reply).toContainText('word5000');
  await expect(reply.getByText(/word5000/)).toBeInViewport();
  await expect(message).toBeInViewport();
  await expect(page.getByRole('button', { name: 'Send' })).toBeInViewport();
  await expect.poll(() => distanceFromEnd(page)).toBeLessThan(60);
});

test('a failed turn says what happened in a sentence and its Retry answers again', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await startChat(page, 'This fails the first time [[fail:once]]');

  const failed = page.getByRole('status', { name: 'Turn failed' });
  await expect(failed).toContainText('The model could not answer: the model server answered 500: scripted failure of the test model. Your message is kept.');
  await expect(failed).not.toContainText('{');
  await captureViews(page, 'chat-failed-retry');
  await failed.getByRole('button', { name: 'Retry' }).click();

  await expect(session.message('Assistant')).toContainText('You said: This fails the first time');
  await expect(failed).toHaveCount(0);
  await expect(session.message('User')).toHaveCount(1);
});

test('a turn with a tool call has one Retry, on its answer', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await startChat(page, 'Look around [[tool:list_directory {"path":"."}]]');

  const replies = session.message('Assistant');
  await expect(replies).toHaveCount(2);
  await expect(replies.last()).toContainText('Tool result:');
  await expect(page.getByRole('button', { name: 'Retry' })).toHaveCount(1);
  await expect(replies.last().getByRole('button', { name: 'Retry' })).toBeVisible();
});
