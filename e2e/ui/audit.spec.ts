import {
  ADMIN_EMAIL,
  captureViews,
  createToken,
  expect,
  mutate,
  newApiContext,
  query,
  signIn,
  signInBrowser,
  test,
} from '../fixtures';
import { AuditLogSection } from '../pages/audit-log';

/** RFC 4180 rows: quoted cells may hold commas, quotes and line ends. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') (cell += '"'), (index += 1);
      else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') row.push(cell), (cell = '');
    else if (char === '\r' && text[index + 1] === '\n') {
      rows.push([...row, cell]);
      (row = []), (cell = ''), (index += 1);
    } else cell += char;
  }
  return rows;
}

const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$|^::1$/;

test('sign-ins, tokens, a share link, an export, a deletion and an admin reset are in the admin\'s audit log; a user sees only their own', async ({ page, browser, adminApi, user }) => {
  // A failed sign-in aimed at the user's account, and one at no account at all.
  const stranger = await newApiContext();
  await signIn(stranger, user.email, 'not-the-password');
  await signIn(stranger, `nobody-${user.id}@e2e.test`, 'not-the-password');
  await stranger.dispose();
  const token = await createToken(user.api, 'audited token');
  expect((await mutate(user.api, 'token.revoke', { id: token.id })).status).toBe(200);
  const sessionId = `audit-${user.id}`;
  expect((await mutate(user.api, 'session.create', { id: sessionId, title: 'Audited' })).status).toBe(200);
  const link = await mutate<{ id: string }>(user.api, 'share.create', { sessionId, scope: 'live' });
  expect(link.status).toBe(200);
  expect((await user.api.get(`/api/export/${sessionId}?format=json`)).status()).toBe(200);
  expect((await mutate(user.api, 'session.delete', { id: sessionId })).status).toBe(200);
  expect((await mutate(adminApi, 'admin.resetPassword', { userId: user.id, password: 'password-after-reset' })).status).toBe(200);

  await signInBrowser(page.context(), adminApi);
  const audit = new AuditLogSection(page, 'Audit log');
  await audit.goto();
  await audit.filter('User', user.email);
  const expected: [action: string, target: string, result: string][] = [
    ['sign-in', user.email, 'success'],
    ['sign-in', user.email, 'failure'],
    ['token.create', token.id, 'success'],
    ['token.revoke', token.id, 'success'],
    ['share.create', link.data.id, 'success'],
    ['export', `/api/export/${sessionId}?format=json`, 'success'],
    ['session.delete', sessionId, 'success'],
  ];
  // Until the filtered page replaces the one shown before it (header row + the user's entries).
  await expect(audit.table.getByRole('row')).toHaveCount(expected.length + 1);
  for (const [action, target, result] of expected) await expect(audit.row(action, target, result)).toHaveCount(1);
  const rows = await audit.rows();
  expect(rows).toHaveLength(expected.length);
  for (const [, actor, ip] of rows) {
    expect(actor).toBe(user.email);
    expect(ip).toMatch(LOOPBACK);
  }
  // The user's rows newest first, the CSV of the same filter equal to the table.
  expect(rows.map((row) => row[3])).toEqual(['session.delete', 'export', 'share.create', 'token.revoke', 'token.create', 'sign-in', 'sign-in']);
  const csv = parseCsv(await audit.downloadCsv());
  expect(csv[0]).toEqual(['at', 'actor', 'ip', 'action', 'target', 'result']);
  expect(csv.slice(1)).toEqual(rows);

  // The admin's reset: the admin is its actor, the user its target.
  await audit.filter('User', ADMIN_EMAIL);
  await audit.filter('Action', 'admin.resetPassword');
  // Only the header row is not a reset once the filter has been applied.
  await expect(audit.table.getByRole('row').filter({ hasNotText: 'admin.resetPassword' })).toHaveCount(1);
  await expect(audit.row('admin.resetPassword', user.id, 'success')).toHaveCount(1);
  await expect(audit.row('admin.resetPassword', user.id)).toContainText(ADMIN_EMAIL);
  await audit.filter('User', 'All users');
  await audit.filter('Action', 'sign-in');
  await audit.filter('Result', 'failure');
  await expect(audit.row(`nobody-${user.id}@e2e.test`, 'failure')).toHaveCount(1);
  await audit.region.scrollIntoViewIfNeeded();
  await captureViews(page, 'admin-audit-log');

  // The user: their own entries only, in Settings and through the API; another's refused.
  const userPage = await (await browser.newContext()).newPage();
  const signedIn = await newApiContext();
  await signIn(signedIn, user.email, 'password-after-reset');
  await signInBrowser(userPage.context(), signedIn);
  const activity = new AuditLogSection(userPage, 'Your activity');
  await activity.goto();
  await expect(activity.row('token.create', token.id)).toHaveCount(1);
  await expect(activity.row('sign-in', 'failure')).toHaveCount(1);
  await expect(activity.table).not.toContainText('admin.resetPassword');
  const ownRows = await activity.rows();
  expect(new Set(ownRows.map((row) => row[1]))).toEqual(new Set([user.email]));
  const admins = await query(signedIn, 'audit.list', { actor: (await query<{ id: string }>(adminApi, 'user.me')).data.id });
  expect(admins.status).toBe(403);
  const ownCsv = parseCsv(await (await signedIn.get('/api/audit.csv')).text());
  expect(ownCsv.length).toBeGreaterThan(1);
  expect(new Set(ownCsv.slice(1).map((row) => row[1]))).toEqual(new Set([user.email]));
  await signedIn.dispose();
  await userPage.context().close();
});
