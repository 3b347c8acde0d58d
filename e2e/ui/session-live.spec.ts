import { appendMessage, bearer, createSession, createToken, expect, mutate, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';

test('an agent appending through the API and a rename show on the open page without a reload', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'live', title: 'Before' });
  await appendMessage(user.api, 'live', { id: 'u1', role: 'user', content: 'Start' });
  const { token } = await createToken(user.api, 'agent');

  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  // The page's event stream opens after hydration; what happens before it is in the first render.
  const streamOpen = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/events');
  await session.goto('live');
  await streamOpen;
  expect(await session.messageIds()).toEqual(['u1']);
  await session.markDocument();

  // An agent's reply, with a tool call, then a next question: all appear.
  await mutate(user.api, 'message.append', { sessionId: 'live', message: { id: 'a1', role: 'assistant', content: 'Working on **it**' } }, bearer(token));
  await expect(session.messageById('a1').locator('strong')).toHaveText('it');
  await mutate(user.api, 'message.append', { sessionId: 'live', message: { id: 't1', role: 'tool', calledBy: 'a1', name: 'search', content: 'found' } }, bearer(token));
  await expect(session.toolCall(session.messageById('a1'), 'search')).toHaveCount(1);
  await mutate(user.api, 'message.append', { sessionId: 'live', message: { id: 'u2', role: 'user', content: 'Thanks' } }, bearer(token));
  await expect.poll(() => session.messageIds()).toEqual(['u1', 'a1', 'u2']);

  await mutate(user.api, 'session.update', { id: 'live', title: 'After the rename' }, bearer(token));
  await expect(session.title).toHaveText('After the rename');
  await mutate(user.api, 'session.update', { id: 'live', status: 'running' }, bearer(token));
  await expect(page.getByRole('status').filter({ hasText: 'Running' })).toBeVisible();
  expect(await session.stillSameDocument()).toBe(true);

  // Deleted by the agent: the page leaves for the start page.
  expect((await mutate(user.api, 'session.delete', { id: 'live' }, bearer(token))).status).toBe(200);
  await expect(page).toHaveURL(/\/$/);
});

test('a large message an agent appends shows whole on the open page, though its event carries only a preview', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'live-large', title: 'Large' });
  await appendMessage(user.api, 'live-large', { id: 'u1', role: 'user', content: 'Start' });
  const { token } = await createToken(user.api, 'agent');
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  const streamOpen = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/events');
  await session.goto('live-large');
  await streamOpen;
  await session.markDocument();

  // 60 KB of text: the event is cut to its first characters; the page reads the message itself.
  const lines = Array.from({ length: 1_200 }, (_, i) => `Line ${i} of the long report, with enough words to be wide.`);
  lines.push('The very last line of the report.');
  await mutate(user.api, 'message.append', { sessionId: 'live-large', message: { id: 'a1', role: 'assistant', content: lines.join('\n\n') } }, bearer(token));
  await expect(session.messageById('a1').getByText('The very last line of the report.')).toBeVisible();
  await expect(session.messageById('a1').getByText('Line 0 of the long report', { exact: false })).toBeVisible();
  expect(await session.stillSameDocument()).toBe(true);
});
