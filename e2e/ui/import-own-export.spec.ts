import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Download, Page } from '@playwright/test';
import { captureViews, createUser, expect, mutate, query, signInBrowser, test } from '../fixtures';

type Api = Parameters<typeof mutate>[0];

/** Two turns with a tool call and reasoning, then a retried answer: a second branch. */
async function seed(api: Api, id: string): Promise<void> {
  await mutate(api, 'session.create', { id, title: 'Round trip chat' });
  await mutate(api, 'turn.begin', { sessionId: id });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'user', content: 'What is in the folder?' } });
  const call = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'Let me look.', metadata: { reasoning: 'list it first' } } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'tool', content: 'readme.txt', calledBy: call.data.id, name: 'list_directory', input: { path: '.' } } });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'One file: readme.txt' } });
  await mutate(api, 'turn.finalize', { sessionId: id });
  await mutate(api, 'turn.begin', { sessionId: id });
  const question = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'user', content: 'Say it shorter' } });
  const old = await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'The old short answer' } });
  await mutate(api, 'turn.finalize', { sessionId: id });
  expect((await mutate(api, 'branch.retry', { sessionId: id, assistantId: old.data.id })).status).toBe(200);
  await mutate(api, 'turn.begin', { sessionId: id });
  await mutate(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: 'The new short answer', parentId: question.data.id } });
  await mutate(api, 'turn.finalize', { sessionId: id });
}

async function nodeIds(api: Api, sessionId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: { messages: { id: string }[]; nextCursor: string | null } } = await query(api, 'message.nodes', { sessionId, cursor });
    ids.push(...page.data.messages.map((message) => message.id));
    cursor = page.data.nextCursor;
  } while (cursor);
  return ids;
}

async function download(page: Page, open: () => Promise<void>): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), open()]);
  mkdirSync(join(tmpdir(), 'importspeed-e2e'), { recursive: true });
  const saved = join(mkdtempSync(join(tmpdir(), 'importspeed-e2e', 'dl-')), (file as Download).suggestedFilename());
  await (file as Download).saveAs(saved);
  return saved;
}

test("a session's JSON export, uploaded on /import by another user, is the same session: its ids, nodes, branches and tool calls; again adds nothing", async ({ user, adminApi, page, context, sessionPage: session, importPage, sidebar }) => {
  // two users, two uploads and eight screenshots: more than the default minute on a busy machine
  test.setTimeout(180_000);
  await seed(user.api, 'roundtrip');
  const sourceIds = await nodeIds(user.api, 'roundtrip');
  await signInBrowser(context, user.api);
  await session.goto('roundtrip');
  const menu = await session.openExportMenu();
  const file = await download(page, () => menu.item('Export as JSON').click());
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { nodes: unknown[] };
  expect(doc.nodes).toHaveLength(sourceIds.length);

  const other = await createUser(adminApi, { label: 'importer' });
  try {
    await context.clearCookies();
    await signInBrowser(context, other.api);
    await importPage.importFiles([file]);
    await expect(importPage.figure('Sessions added')).toHaveText('1');
    await captureViews(page, 'import-own-export-report');

    // the same id, the same nodes, seen through the other user's API and on the page
    expect(await nodeIds(other.api, 'roundtrip')).toEqual(sourceIds);
    await sidebar.row('Round trip chat').click();
    await expect(page).toHaveURL(/\/sessions\/roundtrip$/);
    await expect(session.title).toHaveText('Round trip chat');
    await expect(page.getByText('The new short answer')).toBeVisible();
    const fork = session.fork(2, 2);
    await expect(fork).toBeVisible();
    const tool = session.toolCall(session.messages.filter({ hasText: 'Let me look.' }), 'list_directory');
    await expect(tool).toBeVisible();
    await expect(tool).not.toHaveAttribute('open', '');
    await captureViews(page, 'import-own-export-session');
    await session.previousBranch(fork);
    await expect(page.getByText('The old short answer')).toBeVisible();

    await importPage.importFiles([file]);
    await expect(importPage.figure('Sessions added')).toHaveText('0');
    await expect(importPage.figure('Unchanged')).toHaveText('1');
    expect(await nodeIds(other.api, 'roundtrip')).toEqual(sourceIds);
  } finally {
    await other.api.dispose();
  }
});

test('with redaction switched off in Settings an import keeps a key as written; switched on again, the next import takes it out', async ({ user, page, context, settingsPage, importPage }) => {
  test.setTimeout(180_000);
  const key = `ghp_${'R4nd0mT0k3n'.repeat(3)}abc`;
  const dir = mkdtempSync(join(tmpdir(), 'importspeed-e2e-'));
  const transcript = (sessionId: string): string => {
    const file = join(dir, `${sessionId}.jsonl`);
    const line = { type: 'user', uuid: `${sessionId.slice(0, 24)}000000000001`, parentUuid: null, sessionId, timestamp: '2026-11-25T09:00:00.000Z', message: { role: 'user', content: `push with ${key}` } };
    writeFileSync(file, `${JSON.stringify(line)}\n`);
    return file;
  };
  const contents = async (sessionId: string): Promise<string[]> => {
    const page: { data: { messages: { content: string }[] } } = await query(user.api, 'message.nodes', { sessionId });
    return page.data.messages.map((message) => message.content);
  };
  await signInBrowser(context, user.api);
  await settingsPage.goto();
  const redact = settingsPage.redactSecrets;
  await expect(redact).toBeChecked();
  await redact.uncheck();
  await expect(page.getByText('Redaction is off: messages are stored as written.')).toBeVisible();

  await importPage.importFiles([transcript('d0000000-0000-4000-8000-000000000001')]);
  await expect(page.getByText('Redaction is off in your Settings: secrets are imported as they are.')).toBeVisible();
  await expect(importPage.figure('Secrets redacted')).toHaveText('0');
  expect(await contents('cc-d0000000-0000-4000-8000-000000000001')).toEqual([`push with ${key}`]);

  await settingsPage.goto();
  await redact.check();
  await expect(page.getByText('Secrets are redacted from now on.')).toBeVisible();
  await importPage.importFiles([transcript('d0000000-0000-4000-8000-000000000002')]);
  await expect(importPage.figure('Secrets redacted')).toHaveText('1');
  expect(await contents('cc-d0000000-0000-4000-8000-000000000002')).toEqual(['push with [REDACTED:github]']);
});
