import { appendMessage, captureViews, createSession, createUser, expect, getSession, mutate, query, signInBrowser, test, type BranchMessage } from '../fixtures';
import { SessionPage } from '../pages/session';

test('the branch renders with Markdown, code, a system message, folded tool calls and attachments', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'tour', title: 'A tour of the page' });
  await appendMessage(user.api, 'tour', { id: 'sys', role: 'system', content: 'You are a careful assistant.' });
  await appendMessage(user.api, 'tour', { id: 'u1', role: 'user', content: 'Show me **bold** and a list:\n\n- one\n- two' });
  await appendMessage(user.api, 'tour', {
    id: 'a1',
    role: 'assistant',
    content: 'Here is code:\n\n```ts\nconst answer: number = 42;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |',
  });
  await appendMessage(user.api, 'tour', { id: 't1', role: 'tool', calledBy: 'a1', name: 'read_file', input: { path: 'notes.md' }, content: { lines: 3, text: 'short result' } });
  await appendMessage(user.api, 'tour', { id: 't2', role: 'tool', calledBy: 'a1', name: 'grep', content: `${'x'.repeat(3000)}END-OF-LONG-RESULT` });
  const upload = await user.api.post('/api/attachments', { multipart: { sessionId: 'tour', file: { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') } } });
  expect(upload.status()).toBe(200);
  const saved = (await upload.json()) as { id: string; name: string; size: number };
  await appendMessage(user.api, 'tour', { id: 'u2', role: 'user', content: 'See the file.', metadata: { attachments: [saved] } });
  await mutate(user.api, 'session.update', { id: 'tour', status: 'failed' });

  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  const response = await session.goto('tour');
  expect(response?.status()).toBe(200);
  await expect(session.title).toHaveText('A tour of the page');
  await expect(page.getByRole('status').filter({ hasText: /^Failed$/ })).toBeVisible();
  await expect(session.projectChip('Home')).toHaveAttribute('href', '/projects/default');
  await expect(session.timelineLink).toHaveAttribute('href', '/sessions/tour/timeline');
  expect(await session.messageIds()).toEqual(['sys', 'u1', 'a1', 'u2']);
  await expect(session.message('System')).toContainText('You are a careful assistant.');

  const user1 = session.messageById('u1');
  await expect(user1).toHaveAccessibleName('User');
  await expect(user1.locator('strong')).toHaveText('bold');
  await expect(user1.locator('li')).toHaveText(['one', 'two']);

  // Code is highlighted on the server: spans carry both themes' colours.
  const reply = session.messageById('a1');
  await expect(reply).toHaveAccessibleName('Assistant');
  const code = reply.locator('pre.shiki');
  await expect(code).toContainText('const answer: number = 42;');
  expect(await code.locator('span[style*="--shiki-dark"]').count()).toBeGreaterThan(3);
  await expect(reply.locator('table td')).toHaveText(['1', '2']);

  await captureViews(page, 'session');
  await session.title.scrollIntoViewIfNeeded();
  await captureViews(page, 'session-top');

  // Tool calls fold under the reply that made them, closed until opened; long results fold further.
  const read = session.toolCall(reply, 'read_file');
  await expect(read).not.toHaveAttribute('open');
  await expect(read.getByText('short result')).toBeHidden();
  await read.locator('summary').first().click();
  await expect(read.getByText('"path": "notes.md"')).toBeVisible();
  await expect(read.getByText(/"text": "short result"/)).toBeVisible();
  const grep = session.toolCall(reply, 'grep');
  await grep.locator('summary').first().click();
  await expect(grep.getByText('Show all (3,018 characters)')).toBeVisible();
  await expect(grep.getByText(/END-OF-LONG-RESULT/)).toBeHidden();
  await grep.getByText('Show all (3,018 characters)').click();
  await expect(grep.getByText(/END-OF-LONG-RESULT/)).toBeVisible();

  // The attachment is a download link that serves the file.
  const link = session.messageById('u2').getByRole('link', { name: /notes\.txt/ });
  await expect(link).toHaveAttribute('href', `/api/attachments/tour/${encodeURIComponent(saved.id)}`);
  const download = await user.api.get((await link.getAttribute('href'))!);
  expect(download.status()).toBe(200);
  expect(await download.text()).toBe('hello');

  await read.scrollIntoViewIfNeeded();
  await captureViews(page, 'session-tools');
});

test('a fork shows ‹ n/m ›; switching shows the other branch without a reload and moves the head', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'fork', title: 'Forked talk' });
  await appendMessage(user.api, 'fork', { id: 'u1', role: 'user', content: 'Tell me a joke' });
  await appendMessage(user.api, 'fork', { id: 'a1', role: 'assistant', content: 'First joke' });
  await appendMessage(user.api, 'fork', { id: 'u1b', role: 'user', content: 'Another one' });
  // A retry: a second reply to u1, continued by a later turn; the head goes to that branch's tip.
  await appendMessage(user.api, 'fork', { id: 'a2', role: 'assistant', content: 'Second joke', parentId: 'u1' });
  await appendMessage(user.api, 'fork', { id: 'u2', role: 'user', content: 'Ha, more', parentId: 'a2' });
  await appendMessage(user.api, 'fork', { id: 'a3', role: 'assistant', content: 'Third joke', parentId: 'u2' });
  expect((await mutate(user.api, 'branch.setHead', { sessionId: 'fork', headId: 'a3' })).status).toBe(200);

  await signInBrowser(context, user.api);
  const session = new SessionPage(page);
  await session.goto('fork');
  expect(await session.messageIds()).toEqual(['u1', 'a2', 'u2', 'a3']);
  const second = session.fork(2, 2);
  await expect(second).toBeVisible();
  await expect(second.getByRole('button', { name: 'Next branch' })).toBeDisabled();
  await captureViews(page, 'session-fork');
  await session.markDocument();

  await session.previousBranch(second);
  await expect(session.fork(1, 2)).toBeVisible();
  await expect.poll(() => session.messageIds()).toEqual(['u1', 'a1', 'u1b']);
  await expect(session.messageById('a1')).toContainText('First joke');
  expect(await session.stillSameDocument()).toBe(true);
  expect((await getSession(user.api, 'fork')).headId).toBe('u1b');

  // Back to the second reply: its newest tip, not the reply alone.
  await session.nextBranch(session.fork(1, 2));
  await expect.poll(() => session.messageIds()).toEqual(['u1', 'a2', 'u2', 'a3']);
  expect((await getSession(user.api, 'fork')).headId).toBe('a3');
  expect(await session.stillSameDocument()).toBe(true);
  const branch = (await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'fork' })).data;
  expect(branch.map((m) => m.id)).toEqual(['u1', 'a2', 'u2', 'a3']);

  // A reload shows the branch the head is on.
  await page.reload();
  expect(await session.messageIds()).toEqual(['u1', 'a2', 'u2', 'a3']);
});

test('opening an unread session marks it read', async ({ user, page, context }) => {
  await createSession(user.api, { id: 'unread-one', title: 'Unread' });
  await appendMessage(user.api, 'unread-one', { role: 'user', content: 'new stuff' });
  await mutate(user.api, 'session.update', { id: 'unread-one', unread: true });
  expect((await getSession(user.api, 'unread-one')).unread).toBe(true);
  await signInBrowser(context, user.api);
  await new SessionPage(page).goto('unread-one');
  await expect(page.getByRole('heading', { level: 1, name: 'Unread' })).toBeVisible();
  await expect.poll(async () => (await getSession(user.api, 'unread-one')).unread).toBe(false);
});

test("another user's session and a missing id are the same 404 page", async ({ user, adminApi, page, context }) => {
  const other = await createUser(adminApi, { label: 'other' });
  await createSession(other.api, { id: 'private-one', title: 'Secret plans' });
  await appendMessage(other.api, 'private-one', { role: 'user', content: 'top secret' });
  await signInBrowser(context, user.api);
  const session = new SessionPage(page);

  for (const id of ['private-one', 'no-such-session']) {
    const response = await session.goto(id);
    expect(response?.status(), id).toBe(404);
    await expect(page.getByRole('heading', { level: 1, name: 'Session not found' })).toBeVisible();
    await expect(page.getByText('This session does not exist, or it is not yours.')).toBeVisible();
    await expect(page.getByText('Secret plans')).toHaveCount(0);
    await expect(page.getByText('top secret')).toHaveCount(0);
  }
  await captureViews(page, 'session-not-found');
  await page.getByRole('link', { name: 'Back to your sessions' }).click();
  await expect(page).toHaveURL(/\/chats$/);
  await other.api.dispose();
});
