import { appendMessage, bearer, captureViews, createSession, createToken, expect, getSession, mutate, query, signInBrowser, test, type BranchMessage } from '../fixtures';

test('a message word found from the palette and from the Chats page opens the session at that message', async ({ user, page, context, searchPalette: palette, sessionPage: session, chatsPage: chats }) => {
  const retry = await createSession(user.api, { title: 'Retry design' });
  const question = await appendMessage(user.api, retry.id, { role: 'user', content: 'How should the client back off when the server is busy?' });
  const answer = await appendMessage(user.api, retry.id, { role: 'assistant', content: 'Use **jittered** exponential backoff, capped at thirty seconds.' });
  const backups = await createSession(user.api, { title: 'Backups' });
  const chinese = await appendMessage(user.api, backups.id, { role: 'user', content: '请检查数据库备份的状态，然后告诉我结果' });
  await appendMessage(user.api, backups.id, { role: 'assistant', content: '好的，我来看一下。' });
  await signInBrowser(context, user.api);

  // From the settings page: the palette opens everywhere and says what it does before typing.
  await page.goto('/settings');
  await palette.open();
  await expect(palette.status).toHaveText(/Type a word to search/);
  await palette.search('no-such-word-anywhere');
  await expect(palette.status).toHaveText('Nothing matches “no-such-word-anywhere”.');
  await palette.search('jittered');
  const option = palette.hit(/Retry design/);
  await expect(option).toHaveCount(1);
  await expect(option.locator('mark')).toHaveText('jittered');
  // The hit reads as the message does on its page: words, not Markdown syntax.
  await expect(option).toContainText('Use jittered exponential backoff');
  await captureViews(page, 'search-palette');
  await page.keyboard.press('Enter');

  await expect(page).toHaveURL(new RegExp(`/sessions/${retry.id}\\?m=${answer.id}$`));
  const opened = session.currentMessage;
  await expect(opened).toHaveCount(1);
  await expect(opened).toHaveAttribute('data-message-id', answer.id);
  await expect(opened).toHaveAccessibleName('Assistant');
  await expect(opened).toBeInViewport();
  expect(await session.messageIds()).toEqual([question.id, answer.id]);
  await captureViews(page, 'search-opened');

  // The Chats page: a Chinese two-character word, under the heading "Messages", as a link.
  await chats.goto();
  await chats.search.fill('备份');
  await expect(chats.messageHits.getByRole('heading', { name: 'Messages', exact: true })).toBeVisible();
  const link = chats.messageHit(/Backups.*请检查数据库备份的状态/);
  await expect(link).toHaveCount(1);
  await expect(link.locator('mark')).toHaveText('备份');
  await captureViews(page, 'search-chats');
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${backups.id}\\?m=${chinese.id}$`));
  await expect(session.currentMessage).toHaveAttribute('data-message-id', chinese.id);

  // No hits on the Chats page says so; the palette finds the same word in the session it is on.
  await chats.goto('?q=zzqx-nothing');
  await expect(chats.messageHits).toContainText('No message contains “zzqx-nothing”.');
  await palette.open();
  await palette.search('备份');
  await expect(palette.hit(/Backups/)).toHaveCount(1);
});

test('a hit on a branch that is not the current one opens that branch, and the head stays where it was', async ({ user, page, context, searchPalette: palette, sessionPage: session }) => {
  const forked = await createSession(user.api, { title: 'Forked talk' });
  const question = await appendMessage(user.api, forked.id, { role: 'user', content: 'Name a volcanic glass' });
  const first = await appendMessage(user.api, forked.id, { role: 'assistant', content: 'Obsidian is one.' });
  const second = await appendMessage(user.api, forked.id, { role: 'assistant', content: 'Pumice, in a way.', parentId: question.id });
  expect((await mutate(user.api, 'branch.setHead', { sessionId: forked.id, headId: second.id })).status).toBe(200);
  await signInBrowser(context, user.api);

  await page.goto('/');
  await palette.open();
  await palette.search('obsidian');
  await palette.hit(/Forked talk/).click();
  await expect(page).toHaveURL(new RegExp(`\\?m=${first.id}$`));
  await expect(session.currentMessage).toHaveAttribute('data-message-id', first.id);
  await expect(session.otherBranchNotice).toBeVisible();
  expect(await session.messageIds()).toEqual([question.id, first.id]);
  expect((await getSession(user.api, forked.id)).headId).toBe(second.id);
});

test('a hit 9,000 messages back in a 10,000-message session opens there, highlighted, and newer pages follow on scroll', async ({ user, page, context, searchPalette: palette, sessionPage: session }) => {
  test.setTimeout(300_000);
  const COUNT = 10_000;
  const TARGET = 1_000;
  const { token } = await createToken(user.api, 'seeder');
  await createSession(user.api, { id: 'huge-search', title: 'Ten thousand messages' });
  const BATCH = 100;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < COUNT) {
        const start = next;
        next += BATCH;
        const inputs = Object.fromEntries(
          Array.from({ length: BATCH }, (_, k) => {
            const i = start + k;
            return [k, { sessionId: 'huge-search', message: { role: i % 2 ? 'assistant' : 'user', content: i === TARGET ? 'The zanzibar clause is the one we need' : `Message number ${i}` } }];
          }),
        );
        const response = await user.api.post(`/api/trpc/${Array(BATCH).fill('message.append').join(',')}?batch=1`, {
          headers: { 'content-type': 'application/json', ...bearer(token) },
          data: JSON.stringify(inputs),
        });
        expect(response.status(), await response.text()).toBe(200);
      }
    }),
  );
  const branch = (await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'huge-search' })).data;
  expect(branch).toHaveLength(COUNT);
  const ids = branch.map((m) => m.id);
  // Four writers interleave their batches: the message sits near, not exactly at, position 1,000.
  const target = branch.findIndex((m) => m.content.startsWith('The zanzibar'));
  expect(COUNT - target).toBeGreaterThan(8_500);
  await signInBrowser(context, user.api);

  await page.goto('/chats');
  await palette.open();
  await palette.search('zanzibar');
  await palette.hit(/Ten thousand messages/).click();
  const opened = session.currentMessage;
  await expect(opened).toHaveAttribute('data-message-id', ids[target]!);
  await expect(opened).toBeInViewport();
  await expect(opened).toContainText('The zanzibar clause');
  const shown = await session.messageIds();
  expect(shown.length).toBeLessThanOrEqual(150);
  expect(shown).toContain(ids[target]);

  // Scrolling down reads the pages after it, in order, on the same branch.
  const lastShown = shown[shown.length - 1]!;
  await session.messageById(lastShown).scrollIntoViewIfNeeded();
  await page.mouse.wheel(0, 4000);
  await expect.poll(async () => (await session.messageIds()).length).toBeGreaterThan(shown.length);
  const after = await session.messageIds();
  const from = ids.indexOf(after[0]!);
  expect(after).toEqual(ids.slice(from, from + after.length));
});
