import { appendMessage, createSession, expect, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';

// Issue 23, hardening: images in messages are a session's attachments only, and none while a reply streams.

test('a reply streaming in shows no image, remote or of this site', async ({ page, context, user }) => {
  await signInBrowser(context, user.api);
  await page.goto('/');
  await page.getByRole('textbox', { name: 'Message' }).fill('Look ![pixel](https://tracker.example/p.gif) ![stream](/api/events) ![file](/api/attachments/x/cat.png) [[words:80]] [[delay:60]]');
  await page.getByRole('button', { name: 'Send' }).click();
  const streaming = page.getByRole('region', { name: 'Reply in progress' });
  await expect(streaming).toContainText('You said: Look');
  await expect(streaming).toContainText('word3');
  // One read while it still streams (a retrying count would pass once the region is gone).
  const html = await streaming.innerHTML();
  expect(html).toContain('You said: Look');
  expect(html).not.toContain('word80');
  expect(html).not.toMatch(/<img/i);
});

test('a message shows attachments as images and no other path of this site', async ({ page, context, user }) => {
  await createSession(user.api, { id: 'pics', title: 'pictures' });
  const content = '![kept](/api/attachments/pics/cat.png) ![events](/api/events) ![token list](/api/trpc/token.list) ![up](/api/attachments/pics/%2e%2e) ![remote](https://tracker.example/p.gif)';
  await appendMessage(user.api, 'pics', { id: 'a1', role: 'assistant', content });
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await session.goto('pics');
  const reply = session.messageById('a1');
  await expect(reply).toBeVisible();
  await expect(reply.locator('img')).toHaveCount(1);
  await expect(reply.locator('img')).toHaveAttribute('src', '/api/attachments/pics/cat.png');
  await expect(reply.getByRole('img', { name: 'kept' })).toHaveCount(1);
});
