import { hostileMessages } from '../fixtures/hostile-messages';
import { appendMessage, captureViews, createSession, createUser, expect, query, signInBrowser, test } from '../fixtures';
import { SessionPage } from '../pages/session';

test('a session page holding 3,000 nested quotes answers 200 and shows the message as text', async ({ user, page, context }) => {
  // HTML in it stays text on the fallback path too.
  const deepQuotes = `${hostileMessages().deepQuotes}\n<img src=x onerror=alert(1)> <b>not bold</b>`;
  await createSession(user.api, { id: 'quotes', title: 'Deep quotes' });
  await appendMessage(user.api, 'quotes', { id: 'u1', role: 'user', content: 'Quote this' });
  await appendMessage(user.api, 'quotes', { id: 'a1', role: 'assistant', content: deepQuotes });
  await appendMessage(user.api, 'quotes', { id: 'u2', role: 'user', content: 'And **this** renders as `Markdown`' });

  // Before: a stack overflow in the Markdown pipeline, a 500 on every visit.
  for (let visit = 0; visit < 2; visit++) {
    const answer = await user.api.get('/sessions/quotes', { headers: { accept: 'text/html' } });
    expect(answer.status()).toBe(200);
  }

  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await session.goto('quotes');
  const reply = session.messageById('a1');
  await expect(reply.getByText(deepQuotes, { exact: true })).toBeVisible();
  await expect(reply.locator('img, b')).toHaveCount(0);
  await expect(reply.getByText('Shown as plain text: nested too deeply to format.')).toBeVisible();
  await expect(reply.locator('blockquote')).toHaveCount(0);
  // The other messages are Markdown as ever.
  await expect(session.messageById('u2').locator('strong')).toHaveText('this');
  await expect(session.messageById('u2').locator('code')).toHaveText('Markdown');
  await captureViews(page, 'render-abuse-quotes');
});

test("another user's requests are answered while one user's hostile messages render", async ({ adminApi, user: mallory }) => {
  test.setTimeout(180_000);
  const alice = await createUser(adminApi, { label: 'alice' });
  await createSession(alice.api, { id: 'alice-notes', title: 'Alice' });
  await createSession(mallory.api, { id: 'hostile', title: 'Hostile' });
  // Eight messages that each take seconds to parse, and the other worst cases of issue 23.
  const worst = hostileMessages();
  const contents = [worst.cppSpaces, worst.nestedList, worst.deepQuotes, ...Array.from({ length: 8 }, (_, n) => hostileMessages(`v${n}`).brackets)];
  for (const [n, content] of contents.entries()) {
    await appendMessage(mallory.api, 'hostile', { id: `m${n}`, role: n % 2 ? 'assistant' : 'user', content });
  }
  expect((await query(alice.api, 'session.list', { limit: 50 })).status).toBe(200);

  let pageDone = false;
  const hostilePage = mallory.api.get('/sessions/hostile', { headers: { accept: 'text/html' }, timeout: 170_000 }).then((answer) => {
    pageDone = true;
    return answer;
  });
  // On the request thread, the render held the event loop for the whole page (8 × 40 KB of
  // brackets: half a minute): Alice got the few answers sent before it started, then nothing until
  // it was done. Off it, her requests go on while the page renders, as many as she sends.
  const WANTED = 200;
  let answeredDuring = 0;
  while (!pageDone && answeredDuring < WANTED) {
    const list = await query(alice.api, 'session.list', { limit: 50 });
    expect(list.status).toBe(200);
    if (!pageDone) answeredDuring++;
  }
  expect(answeredDuring).toBe(WANTED);

  const answer = await hostilePage;
  expect(answer.status()).toBe(200);
  const html = await answer.text();
  // Every hostile message is on the page, as text where it could not be formatted in time.
  expect(html).toContain('the end');
  expect(html).toContain('item 299');
  expect(html).toContain('Shown as plain text: took too long to format.');
  await alice.api.dispose();
});
