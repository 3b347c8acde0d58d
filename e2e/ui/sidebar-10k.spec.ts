import { bearer, createToken, expect, mutate, signInBrowser, test } from '../fixtures';
import { Sidebar } from '../pages/sidebar';

const COUNT = 10_000;
const IN_FLIGHT = 20;
/** the virtualised list's budget (DESIGN §9: ≤ 200 session rows in the DOM) */
const MAX_ROWS = 200;

test('10,000 sessions: the row elements stay bounded while scrolling reaches the oldest', async ({ page, context, user }) => {
  test.setTimeout(600_000);
  const { token } = await createToken(user.api, 'bulk seeding agent');
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < COUNT) {
        const i = next++;
        const answer = await mutate(user.api, 'session.create', { id: `s${String(i).padStart(5, '0')}`, title: `Bulk ${i}` }, bearer(token));
        if (answer.status !== 200) throw new Error(`create ${i}: ${answer.status}`);
      }
    }),
  );
  // Created in order, so the oldest is s00000; give the newest and the oldest a distinct place.
  await mutate(user.api, 'message.append', { sessionId: 's05000', message: { role: 'user', content: 'moved to the top' } });

  await signInBrowser(context, user.api);
  await page.goto('/');
  const sidebar = new Sidebar(page);
  await expect(sidebar.row('Bulk 5000')).toBeVisible();
  const counts: number[] = [await sidebar.rowLinks().count()];
  const list = sidebar.nav.locator('[data-session-list]');
  const started = Date.now();
  while (Date.now() - started < 400_000) {
    await list.evaluate((element) => (element.scrollTop = element.scrollHeight));
    await page.waitForTimeout(100);
    counts.push(await sidebar.rowLinks().count());
    if (await sidebar.row('Bulk 0').count()) break;
  }
  await expect(sidebar.row('Bulk 0')).toBeVisible();
  await expect(sidebar.row('Bulk 1')).toBeVisible();
  expect(Math.max(...counts)).toBeLessThanOrEqual(MAX_ROWS);
  expect(Math.min(...counts)).toBeGreaterThan(5);
  // Every session was loaded on the way: the list is as tall as 10,000 rows.
  const height = await list.evaluate((element) => element.scrollHeight);
  expect(height).toBeGreaterThan(COUNT * 50);
});
