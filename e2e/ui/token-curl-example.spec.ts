import { execFileSync } from 'node:child_process';
import { BASE_URL, captureViews, expect, query, signInBrowser, test, type SessionRow } from '../fixtures';

// Issue 16 item 8: the new token's Copy button gives the worked curl example, filled in, and it works.

test('a new token copies as a curl example with this server and the token filled in, and that example writes a session', async ({ browser, user }) => {
  const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
  await signInBrowser(context, user.api);
  const page = await context.newPage();
  await page.goto('/settings');
  await page.getByLabel('Token name').fill('curl agent');
  await page.getByRole('button', { name: 'Create token' }).click();
  const token = (await page.getByTestId('new-token').textContent())!;
  expect(token).toMatch(/^em_/);

  await page.getByRole('button', { name: 'Copy token' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Copied$/ })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

  // The first "Copied" goes after a moment; then the second button says it for itself.
  await expect(page.getByRole('status').filter({ hasText: /^Copied$/ })).toHaveCount(0);
  await page.getByRole('button', { name: 'Copy curl example' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Copied$/ })).toBeVisible();
  const example = await page.evaluate(() => navigator.clipboard.readText());
  expect(example).toContain(`TOKEN='${token}'`);
  expect(example).toContain(`BASE='${BASE_URL}'`);
  await page.getByText('Write a session with curl (the example, with this token)').click();
  await captureViews(page, 'settings-new-token');

  // Run as copied: a session with one turn, the question and the answer.
  const output = execFileSync('sh', ['-c', `set -e\n${example}`], { encoding: 'utf8' });
  expect(output).toContain('"content":"42."');
  const rows = (await query<{ rows: SessionRow[] }>(user.api, 'session.list')).data.rows;
  const written = rows.find((row) => row.title === 'Written with curl');
  expect(written).toMatchObject({ source: 'curl' });
  const detail = (await query<{ turnCount: number }>(user.api, 'session.get', { id: written!.id })).data;
  expect(detail.turnCount).toBe(1);
  const branch = (await query<{ role: string; content: string }[]>(user.api, 'message.branch', { sessionId: written!.id })).data;
  expect(branch.map((message) => [message.role, message.content])).toEqual([
    ['user', 'What is 6 times 7?'],
    ['assistant', '42.'],
  ]);
  await context.close();
});
