import type { Page } from '@playwright/test';
import { createUser, expect, signInBrowser, test } from '../fixtures';

/** The draft is read after mount: a menu that opens proves the page is live, so a stray draft would show by now. */
async function expectHydratedAndEmpty(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Project: Home' }).click();
  await expect(page.getByRole('menu')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
}

// Issue 23 item 8: an unsent draft is its writer's alone, and sign-out leaves none behind.

test('a draft is kept per person: the next one at the same browser starts empty, the writer finds theirs again', async ({ page, context, user, adminApi }) => {
  const other = await createUser(adminApi, { label: 'next-person' });
  await signInBrowser(context, user.api);
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill('my private half-thought');
  await page.reload();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('my private half-thought');

  // The sign-in lapses without a sign-out (the cookie gone), and someone else signs in here.
  await context.clearCookies();
  await signInBrowser(context, other.api);
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'New chat', level: 1 })).toBeVisible();
  await expectHydratedAndEmpty(page);

  await context.clearCookies();
  await signInBrowser(context, user.api);
  await page.goto('/');
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('my private half-thought');
  await other.api.dispose();
});

test('signing out forgets every draft kept in the browser', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill('do not keep this');
  await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('entity-memory.draft.')).length)).toBe(1);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('entity-memory.draft.')))).toEqual([]);

  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'New chat', level: 1 })).toBeVisible();
  await expectHydratedAndEmpty(page);
});

test('the account menu of a phone signs out and forgets drafts too', async ({ page, context, user }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInBrowser(context, user.api);
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill('phone draft');
  await expect.poll(() => page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('entity-memory.draft.')).length)).toBe(1);
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  expect(await page.evaluate(() => Object.keys(localStorage).filter((key) => key.startsWith('entity-memory.draft.')))).toEqual([]);
});
