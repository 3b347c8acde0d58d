import type { Locator } from '@playwright/test';
import { captureViews, expect, signInBrowser, test } from '../fixtures';
import { ChatsPage } from '../pages/chats';

const PHONE = { width: 390, height: 844 };

/** Whether a box's content is wider than the box (text cut off or scrolled sideways). */
function overflowsSideways(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element.scrollWidth > element.clientWidth + 1);
}

test('at 390 px: the empty Chats page offers Connect Claude Code / Codex first, and its curl lines stay on screen', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  await page.setViewportSize(PHONE);
  const chats = new ChatsPage(page);
  await chats.goto();
  const connect = chats.main.getByRole('link', { name: 'Connect Claude Code / Codex', exact: true });
  await expect(connect).toBeVisible();
  const snippet = chats.main.getByText(/session\.create/);
  // First: above the curl lines.
  expect((await connect.boundingBox())!.y).toBeLessThan((await snippet.boundingBox())!.y);
  expect(await overflowsSideways(snippet)).toBe(false);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  await captureViews(page, 'h31a-chats-empty');
  await page.setViewportSize(PHONE);
  await connect.click();
  await expect(page).toHaveURL(/\/settings#connect-title$/);
  await expect(page.getByRole('heading', { name: 'Connect an agent' })).toBeInViewport();
});

test('at 390 px: the Connect card\'s lines, the header line too, wrap inside the card', async ({ page, context, user, settingsPage }) => {
  await signInBrowser(context, user.api);
  await page.setViewportSize(PHONE);
  await settingsPage.goto();
  const lines = settingsPage.connect.getByLabel('Lines for Claude Code');
  await expect(lines).toContainText('ANTHROPIC_CUSTOM_HEADERS');
  expect(await overflowsSideways(lines)).toBe(false);
  await lines.scrollIntoViewIfNeeded();
  await captureViews(page, 'h31a-settings-connect');
});

test('at 390 px: "(you)" on the Admin page stays one word', async ({ page, context, adminApi }) => {
  await signInBrowser(context, adminApi);
  await page.setViewportSize(PHONE);
  await page.goto('/admin');
  const you = page.getByRole('main').getByText('(you)', { exact: true });
  await expect(you).toBeVisible();
  // One box: the word is not broken over two lines.
  expect(await you.evaluate((element) => element.getClientRects().length)).toBe(1);
  await captureViews(page, 'h31a-admin');
});
