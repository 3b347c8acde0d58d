import { appendMessage, createSession, expect, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';

const PAYLOADS = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[x](javascript:alert(1))',
  '<a href="javascript:alert(2)">raw link</a> <svg onload=alert(3)></svg> <iframe src="javascript:alert(4)"></iframe>',
  '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==) ![pixel](https://tracker.example/p.gif)',
];

test('a message holding script, an onerror image and javascript: links renders inert', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'xss', title: '<script>alert("title")</script>' });
  await appendMessage(user.api, 'xss', { id: 'u1', role: 'user', content: PAYLOADS.join('\n\n') });
  await appendMessage(user.api, 'xss', { id: 'a1', role: 'assistant', content: PAYLOADS.join('\n\n') });
  await appendMessage(user.api, 'xss', { id: 't1', role: 'tool', calledBy: 'a1', name: '<img src=x onerror=alert(6)>', input: { html: '<script>alert(7)</script>' }, content: '<script>alert(8)</script>' });

  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await session.goto('xss');
  await expect(session.title).toHaveText('<script>alert("title")</script>');
  const reply = session.messageById('a1');
  await expect(reply).toBeVisible();
  // What the message said shows as text.
  await expect(reply.getByText('<script>alert(1)</script>')).toBeVisible();
  await expect(reply.getByText('<img src=x onerror=alert(1)>')).toBeVisible();
  await session.toolCall(reply, '<img src=x onerror=alert(6)>').locator('summary').first().click();
  await expect(reply.getByText('<script>alert(8)</script>')).toBeVisible();
  // The link text stays, its javascript: target does not.
  await expect(reply.getByText('x', { exact: true })).toBeVisible();

  const found = await page.evaluate(() => {
    const articles = [...document.querySelectorAll('article')];
    const everything = [...document.querySelectorAll('*')];
    return {
      scriptsInMessages: articles.reduce((n, article) => n + article.querySelectorAll('script, iframe, svg script, object, embed').length, 0),
      handlers: everything.filter((element) => [...element.attributes].some((attribute) => /^on/i.test(attribute.name))).length,
      jsUrls: everything.filter((element) => [...element.attributes].some((attribute) => /^\s*(javascript|data|vbscript):/i.test(attribute.value))).length,
      images: articles.reduce((n, article) => n + article.querySelectorAll('img').length, 0),
      iframes: document.querySelectorAll('iframe').length,
    };
  });
  expect(found).toEqual({ scriptsInMessages: 0, handlers: 0, jsUrls: 0, images: 0, iframes: 0 });

  // Clicking the defanged links runs nothing either.
  await reply.getByText('raw link').click({ trial: false }).catch(() => undefined);
  await reply.getByText('x', { exact: true }).click();
  await page.waitForTimeout(500);
  expect(dialogs).toEqual([]);
  expect(errors).toEqual([]);
});
