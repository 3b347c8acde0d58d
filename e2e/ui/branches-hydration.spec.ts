import { appendMessage, createSession, expect, mutate, signInBrowser, test, type FinalizeTurnResult } from '../fixtures';
import { SessionPage } from '../pages/session';
import { TimelinePage } from '../pages/timeline';

test('a conversation with three branches hydrates without an error, on its page and its timeline', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'three-branches', title: 'Three tries' });
  await appendMessage(user.api, 'three-branches', { role: 'user', content: 'Name a colour' });
  const first = await appendMessage(user.api, 'three-branches', { role: 'assistant', content: 'Red' });
  expect((await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'three-branches' })).status).toBe(200);
  for (const colour of ['Green', 'Blue']) {
    const retry = await mutate<{ parentId: string }>(user.api, 'branch.retry', { sessionId: 'three-branches', assistantId: first.id });
    await appendMessage(user.api, 'three-branches', { role: 'assistant', content: colour, parentId: retry.data.parentId });
    expect((await mutate<FinalizeTurnResult>(user.api, 'turn.finalize', { sessionId: 'three-branches' })).status).toBe(200);
  }
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await signInBrowser(context, user.api);

  const session = new SessionPage(page);
  await session.goto('three-branches');
  await expect(session.fork(3, 3)).toBeVisible();
  const timeline = new TimelinePage(page);
  await timeline.goto('three-branches');
  await expect(timeline.graph()).toBeVisible();
  await expect(timeline.turns()).toHaveCount(3);
  // React reports a hydration mismatch as error #418 (minified) on the console.
  expect(errors.filter((text) => /#418|#423|hydrat/i.test(text))).toEqual([]);
});
