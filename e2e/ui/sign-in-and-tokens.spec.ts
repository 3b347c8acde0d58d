import { ADMIN_EMAIL, ADMIN_PASSWORD, bearer, expect, newApiContext, query, test } from '../fixtures';

test('sign in through the page, see the shell, create an API token in Settings', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId('signed-in-as')).toHaveText(ADMIN_EMAIL);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Admin' })).toBeVisible();
  await nav.getByRole('link', { name: 'Settings' }).click();

  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await page.getByLabel('Token name').fill('ui agent');
  await page.getByRole('button', { name: 'Create token' }).click();
  const shown = page.getByTestId('new-token');
  await expect(shown).toHaveText(/^em_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  const token = (await shown.textContent())!;
  await expect(page.getByRole('cell', { name: 'ui agent', exact: true })).toBeVisible();

  // The token shown is a working credential.
  const api = await newApiContext();
  const me = await query<{ email: string; via: string }>(api, 'user.me', undefined, bearer(token));
  expect(me.data).toEqual(expect.objectContaining({ email: ADMIN_EMAIL, via: 'token' }));
  await api.dispose();

  // Shown once: gone after Done and after a reload.
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  await page.reload();
  await expect(page.getByRole('cell', { name: 'ui agent', exact: true })).toBeVisible();
  await expect(page.getByText(token)).toHaveCount(0);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.goto('/settings');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fsettings/);
});

test('a wrong password shows an error on the page', async ({ page }) => {
  await page.goto('/signin');
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill('definitely-wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Wrong email or password' })).toBeVisible();
  await expect(page).toHaveURL(/\/signin/);
});

test('signing in with a callback that hides another host behind a tab lands on this site (issue 23 item 5)', async ({ page, baseURL }) => {
  await page.goto('/signin?callbackUrl=/%09/evil.example/');
  await page.getByLabel('Email').fill(ADMIN_EMAIL);
  await page.getByLabel('Password').fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText(ADMIN_EMAIL);
  expect(new URL(page.url()).origin).toBe(new URL(baseURL!).origin);
  await expect(page).toHaveURL(/\/$/);
});
