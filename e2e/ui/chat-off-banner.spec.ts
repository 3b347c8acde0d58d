import { captureViews, expect, mutate, signInBrowser, test, type TestUser } from '../fixtures';
import { SessionPage } from '../pages/session';

type Api = TestUser['api'];

/** Half a model: chat is off for everyone until the finally puts the environment's model back. */
async function withChatOff(adminApi: Api, work: () => Promise<void>): Promise<void> {
  expect((await mutate(adminApi, 'models.set', { model: 'half-configured' })).status).toBe(200);
  try {
    await work();
  } finally {
    await mutate(adminApi, 'models.set', { baseUrl: null, apiKey: null, model: null, titleModel: null, detectLocal: false });
  }
}

/** A session of many short turns; returns the id of an early message, what a search hit would open. */
async function longSession(api: Api, id: string, extra: Record<string, string> = {}): Promise<string> {
  expect((await mutate(api, 'session.create', { id, title: `Long ${id}`, ...extra })).status).toBe(200);
  let target = '';
  for (let index = 1; index <= 12; index += 1) {
    await mutate(api, 'turn.begin', { sessionId: id });
    const question = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'user', content: `question ${index} about the garden` } });
    await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: `answer ${index}: water it in the morning` } });
    await mutate(api, 'turn.finalize', { sessionId: id });
    if (index === 3) target = question.data.id;
  }
  return target;
}

test('chat off: one line for a user, no Admin page, no variables; it folds and stays folded', async ({ page, context, user, adminApi }) => {
  await signInBrowser(context, user.api);
  await withChatOff(adminApi, async () => {
    await page.goto('/');
    const notice = page.getByRole('status', { name: 'Chat is off' });
    await expect(notice).toContainText('Chat is off: no model is set up, and only an admin can set one.');
    await expect(notice.getByRole('link')).toHaveCount(0);
    await expect(notice).not.toContainText('OPENPROGRAM_');
    await expect(notice).not.toContainText('Admin page');
    // One line at 1280 px: no taller than one line of its text plus its padding.
    const box = (await notice.boundingBox())!;
    expect(box.height).toBeLessThan(40);
    await captureViews(page, 'h31a-chat-off-user');

    await notice.getByRole('button', { name: 'Hide' }).click();
    const folded = notice.getByRole('button', { name: 'Chat is off' });
    await expect(folded).toHaveAttribute('aria-expanded', 'false');
    await expect(notice).not.toContainText('only an admin');
    await captureViews(page, 'h31a-chat-off-folded');
    await page.reload();
    await expect(page.getByRole('status', { name: 'Chat is off' }).getByRole('button', { name: 'Chat is off' })).toBeVisible();
    await page.getByRole('status', { name: 'Chat is off' }).getByRole('button', { name: 'Chat is off' }).click();
    await expect(page.getByRole('status', { name: 'Chat is off' })).toContainText('only an admin can set one');
  });
});

test('chat off: the admin is sent to the Admin page, not told to ask an admin', async ({ page, context, adminApi }) => {
  await signInBrowser(context, adminApi);
  await withChatOff(adminApi, async () => {
    await page.goto('/');
    const notice = page.getByRole('status', { name: 'Chat is off' });
    await expect(notice).toContainText('Chat is off: no model is set.');
    await expect(notice).not.toContainText('ask an admin');
    await expect(notice.getByRole('link', { name: 'Set one on the Admin page' })).toHaveAttribute('href', '/admin#models-title');
    await captureViews(page, 'h31a-chat-off-admin');
  });
});

test('chat off: no banner on an agent session; at 390 px a search jump is not under the composer', async ({ page, context, user, adminApi }) => {
  // Two sessions of many turns to seed, on a machine that may be busy.
  test.setTimeout(180_000);
  const agentTarget = await longSession(user.api, 'agent-recorded', { source: 'proxy:claude-code', agentId: 'claude-code' });
  const webTarget = await longSession(user.api, 'web-chat', { source: 'web' });
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await withChatOff(adminApi, async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // The agent's session: read here, nothing about chat.
    await page.goto(`/sessions/agent-recorded?m=${agentTarget}`);
    await expect(session.messageById(agentTarget)).toBeInViewport();
    await expect(page.getByRole('textbox', { name: 'Message' })).toBeVisible();
    // Nothing about chat, whatever its wording.
    await expect(page.getByRole('main').getByText(/chat is off|no model/i)).toHaveCount(0);
    await captureViews(page, 'h31a-agent-session-chat-off');

    // The web chat's session: the banner is there, and the opened message is above the pinned composer.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/sessions/web-chat?m=${webTarget}`);
    const notice = page.getByRole('status', { name: 'Chat is off' });
    await expect(notice).toBeVisible();
    const opened = session.messageById(webTarget);
    await expect(opened).toBeInViewport({ ratio: 1 });
    const target = (await opened.boundingBox())!;
    const banner = (await notice.boundingBox())!;
    expect(target.y + target.height).toBeLessThanOrEqual(banner.y);
    await captureViews(page, 'h31a-web-session-chat-off');
  });
});
