import { ADMIN_EMAIL, ADMIN_PASSWORD, captureViews, expect, mutate, query, signInBrowser, signedInContext, test } from '../fixtures';
import { ChatsPage } from '../pages/chats';
import { Sidebar } from '../pages/sidebar';

test('keyboard: move with j/k and arrows, rename, delete, new chat, search, and the ? overlay', async ({ page, context, user }) => {
  for (const id of ['k1', 'k2', 'k3']) await mutate(user.api, 'session.create', { id, title: `Key ${id}` });
  await signInBrowser(context, user.api);
  await page.goto('/settings');
  const sidebar = new Sidebar(page);
  await expect(sidebar.row('Key k3')).toBeVisible();

  await page.keyboard.press('?');
  const overlay = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(overlay).toBeVisible();
  await expect(overlay).toContainText('Rename the focused session');
  await page.keyboard.press('Escape');
  await expect(overlay).toHaveCount(0);

  await page.keyboard.press('j');
  await expect(sidebar.row('Key k3')).toBeFocused();
  await page.keyboard.press('j');
  await expect(sidebar.row('Key k2')).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(sidebar.row('Key k1')).toBeFocused();
  await page.keyboard.press('k');
  await expect(sidebar.row('Key k2')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(sidebar.row('Key k3')).toBeFocused();

  await page.keyboard.press('r');
  const field = sidebar.nav.getByRole('textbox', { name: 'Session title' });
  await expect(field).toBeFocused();
  // Typing in the field is not a shortcut: "j", "k", "n" and "?" are just letters here.
  await field.fill('');
  await page.keyboard.type('jk n?');
  await page.keyboard.press('Enter');
  await expect(sidebar.row('jk n?')).toBeVisible();
  await expect(page).toHaveURL(/\/settings$/);

  await sidebar.row('jk n?').focus();
  await page.keyboard.press('Delete');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(sidebar.row('jk n?')).toHaveCount(0);
  // Deleted once the Undo of its toast has run out.
  await expect.poll(async () => (await query(user.api, 'session.get', { id: 'k3' })).status, { timeout: 15_000 }).toBe(404);

  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('/');
  await expect(page).toHaveURL(/\/chats/);
  await expect(new ChatsPage(page).search).toBeFocused();
  await page.locator('main h1').click();
  await page.keyboard.press('n');
  await expect(page).toHaveURL(/\/$/);
});

test('dark mode: the toggle switches the theme and the choice survives a reload', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/');
  const html = page.locator('html');
  await expect(html).not.toHaveClass(/dark/);
  await page.getByRole('button', { name: 'Toggle dark mode' }).click();
  await expect(html).toHaveClass(/dark/);
  await page.reload();
  await expect(html).toHaveClass(/dark/);
  await page.getByRole('button', { name: 'Toggle dark mode' }).click();
  await expect(html).not.toHaveClass(/dark/);
  await page.reload();
  await expect(html).not.toHaveClass(/dark/);
});

test('narrow screens: the sidebar is a drawer behind "Open sidebar"', async ({ page, context, user }) => {
  await mutate(user.api, 'session.create', { id: 'narrow', title: 'On a phone' });
  await signInBrowser(context, user.api);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/settings');
  const sessions = page.getByRole('navigation', { name: 'Sessions' });
  await expect(sessions).toHaveCount(0);
  await page.getByRole('button', { name: 'Open sidebar' }).click();
  await expect(sessions.getByRole('link', { name: 'On a phone' })).toBeVisible();
  await captureViews(page, 'sidebar-drawer');
  await page.keyboard.press('Escape');
  await expect(sessions).toHaveCount(0);

  // The account menu holds what the wide header shows inline.
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
  await page.getByRole('button', { name: 'Account menu' }).click();
  await expect(page.getByRole('menuitem', { name: 'Sign out' })).toBeVisible();
  await page.getByRole('menuitem', { name: 'Settings' }).click();
  await expect(page.getByRole('menu')).toHaveCount(0);

  // Following a row closes the drawer.
  await page.getByRole('button', { name: 'Open sidebar' }).click();
  await sessions.getByRole('link', { name: 'On a phone' }).click();
  await expect(page).toHaveURL(/\/sessions\/narrow$/);
  await expect(sessions).toHaveCount(0);
});

// One page per test: four pictures each, so a loaded machine does not push one test past its budget.
test('screenshots of the sign-in page in the new look', async ({ browser }) => {
  const signedOut = await browser.newPage();
  await signedOut.goto('/signin');
  await expect(signedOut.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await captureViews(signedOut, 'signin');
  await signedOut.close();
});

test('screenshots of the settings page in the new look', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  await page.goto('/settings');
  await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
  await captureViews(page, 'settings');
});

test('screenshots of the admin page; Reset password asks in a dialog', async ({ browser, user }) => {
  const admin = await signedInContext(ADMIN_EMAIL, ADMIN_PASSWORD);
  const adminContext = await browser.newContext();
  await signInBrowser(adminContext, admin);
  const adminPage = await adminContext.newPage();
  await adminPage.goto('/admin');
  await expect(adminPage.getByRole('heading', { name: 'Admin', level: 1 })).toBeVisible();
  await captureViews(adminPage, 'admin');

  // Reset password asks in a dialog now, not window.prompt.
  await adminPage.getByRole('button', { name: `Reset the password of ${user.email}` }).click();
  const dialog = adminPage.getByRole('dialog');
  await dialog.getByLabel('New password (8 characters or more)').fill('a-new-password-1');
  await dialog.getByRole('button', { name: 'Reset password' }).click();
  await expect(adminPage.getByText(`Password of ${user.email} reset.`)).toBeVisible();
  await adminContext.close();
  await admin.dispose();
});
