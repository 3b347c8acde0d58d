import type { Page } from '@playwright/test';
import { appendMessage, captureViews, createSession, expect, mutate, query, signInBrowser, test, type SessionDetail } from '../fixtures';
import { TimelinePage } from '../pages/timeline';

const NARROW = { width: 390, height: 844 };

/** Nothing on the page is wider than the screen: no sideways scrolling of the page itself. */
async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const widths = await page.evaluate(() => {
    const main = document.querySelector('main')!;
    return { doc: document.documentElement.scrollWidth, view: window.innerWidth, main: main.scrollWidth, mainView: main.clientWidth };
  });
  expect(widths.doc).toBeLessThanOrEqual(widths.view);
  expect(widths.main).toBeLessThanOrEqual(widths.mainView);
}

test('an edited and resent first question: labelled a fork on the timeline, one tree in the graph, usable at 390 px', async ({ page, context, user }) => {
  const session = await createSession(user.api, { id: 'forked', title: 'Forked' });
  await mutate(user.api, 'turn.begin', { sessionId: session.id });
  const first = await appendMessage(user.api, session.id, { role: 'user', content: 'first question' });
  const firstAnswer = await appendMessage(user.api, session.id, { role: 'assistant', content: 'first answer' });
  await mutate(user.api, 'turn.finalize', { sessionId: session.id });
  // Edit and resend, as the Edit button does: the new question beside the first, answered by the model.
  const sent = await mutate(user.api, 'chat.send', { sessionId: session.id, content: 'edited question', parentId: null });
  expect(sent.status).toBe(200);
  await expect.poll(async () => (await query<SessionDetail>(user.api, 'session.get', { id: session.id })).data.status, { timeout: 20_000 }).toBe('idle');
  await signInBrowser(context, user.api);

  const timeline = new TimelinePage(page);
  await timeline.goto(session.id);
  await expect(timeline.turn(2)).toContainText('Fork: an edited question, resent as a new branch');
  await expect(timeline.turn(2).getByRole('list', { name: 'Messages added' })).toContainText('edited');
  await expect(timeline.turn(1)).not.toContainText('Fork:');
  // Two first messages, one start: the graph is one tree.
  const graph = timeline.graph();
  await expect(graph.getByText('Start', { exact: true })).toBeVisible();
  await expect(graph.getByRole('link', { name: /^Switch to branch / })).toHaveCount(1);
  await captureViews(page, 'forks-timeline');

  await page.setViewportSize(NARROW);
  await expectNoSidewaysScroll(page);
  const box = await graph.locator('xpath=..').boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(NARROW.width);
  // The other branch's tip is reachable and switches to it.
  const tip = graph.getByRole('link', { name: /^Switch to branch / });
  await tip.scrollIntoViewIfNeeded();
  await expect(tip).toBeInViewport();
  await tip.click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${session.id}$`));
  await expect(page.getByRole('article', { name: 'User' }).first()).toContainText('first question');
  expect(first.parentId).toBeNull();
  expect((await query<SessionDetail>(user.api, 'session.get', { id: session.id })).data.headId).toBe(firstAnswer.id);
});

test('the Admin users table at 390 px: every user\u2019s actions on screen', async ({ browser, adminApi, user }) => {
  const context = await browser.newContext({ viewport: NARROW });
  await signInBrowser(context, adminApi);
  const page = await context.newPage();
  await page.goto('/admin');
  const table = page.getByRole('table', { name: 'Users' });
  await expect(table).toBeVisible();
  await expectNoSidewaysScroll(page);
  const reset = table.getByRole('button', { name: `Reset the password of ${user.email}` });
  const disable = table.getByRole('button', { name: `Disable ${user.email}` });
  for (const button of [reset, disable]) {
    await button.scrollIntoViewIfNeeded();
    await expect(button).toBeInViewport({ ratio: 1 });
  }
  await expect(table.getByRole('row').filter({ hasText: user.email })).toContainText('user · active');
  await captureViews(page, 'admin-narrow');
  await context.close();
});
