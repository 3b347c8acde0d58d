import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { appendMessage, captureViews, createSession, e2eScratchDir, expect, getSession, mutate, signInBrowser, test, type FinalizeTurnResult } from '../fixtures';
import { ChatsPage } from '../pages/chats';
import { ImportPage } from '../pages/import';
import { SessionPage } from '../pages/session';
import { Sidebar } from '../pages/sidebar';
import { TimelinePage } from '../pages/timeline';

const CHATGPT = resolve(process.cwd(), '..', 'shared', 'fixtures', 'import', 'chatgpt', 'conversations.json');

/** A prompt as Claude Code makes it through the proxy: a call-only reply, then the tool's result and the answer in a turn of their own. */
async function promptWithToolRoundTrip(api: Parameters<typeof appendMessage>[0], sessionId: string, prompt: string, file: string) {
  await appendMessage(api, sessionId, { role: 'user', content: prompt });
  const input = { file_path: `/home/dev/proj/${file}`, content: 'hello\n' };
  const call = await appendMessage(api, sessionId, { role: 'assistant', content: '', metadata: { tool_calls: [{ id: `call-${file}`, name: 'Write', arguments: JSON.stringify(input) }] } });
  expect((await mutate<FinalizeTurnResult>(api, 'turn.finalize', { sessionId })).status).toBe(200);
  await appendMessage(api, sessionId, { role: 'tool', content: `File created: ${file}`, calledBy: call.id, name: 'Write', input, metadata: { tool_call_id: `call-${file}` } });
  await appendMessage(api, sessionId, { role: 'assistant', content: `Wrote ${file}.`, parentId: call.id });
  expect((await mutate<FinalizeTurnResult>(api, 'turn.finalize', { sessionId })).status).toBe(200);
}

test("an agent's tool round-trip: the timeline labels it, a call-only message shows its calls, the folded call names its file", async ({ user, page, context }) => {
  await createSession(user.api, { id: 'agent-tools', title: 'Write notes' });
  await promptWithToolRoundTrip(user.api, 'agent-tools', 'please write a file', 'notes.txt');
  await signInBrowser(context, user.api);

  const session = new SessionPage(page);
  await session.goto('agent-tools');
  const reply = session.message('Assistant').first();
  await expect(session.toolCallSummary(reply, 'Write')).toHaveText('Tool call: Write /home/dev/proj/notes.txt');
  await captureViews(page, 'h31b-session-tool-call');

  const timeline = new TimelinePage(page);
  await timeline.goto('agent-tools');
  await expect(page.getByText('1 prompt in 2 turns')).toBeVisible();
  await expect(timeline.turns().getByRole('heading')).toHaveText(['Turn 2 · tool results', 'Turn 1']);
  await expect(timeline.turn(2).getByText('turn: tool results · please write a file', { exact: true })).toBeVisible();
  const first = timeline.turn(1).getByRole('list', { name: 'Messages added' }).getByRole('listitem');
  await expect(first).toHaveText(['userplease write a file', 'assistantTool call: Write']);
  // No project folder: each turn says why there is no project commit.
  await expect(timeline.turn(1).getByText('No project commit: this session has no project folder, so there is no repository to commit to.')).toBeVisible();
  await captureViews(page, 'h31b-timeline-tool-results');
});

test('rows with the same title are told apart by a preview line and when they were written, in the sidebar and on Chats', async ({ user, page, context }) => {
  const updated: Record<string, number> = {};
  for (const n of [1, 2, 3]) {
    const id = `same-title-${n}`;
    await createSession(user.api, { id, title: 'please write a file' });
    await appendMessage(user.api, id, { role: 'user', content: 'please write a file' });
    await appendMessage(user.api, id, { role: 'assistant', content: 'Which name?' });
    // The preview is the newest prompt (DESIGN §5).
    await appendMessage(user.api, id, { role: 'user', content: `call it notes-${n}.txt` });
    updated[`call it notes-${n}.txt`] = (await getSession(user.api, id)).updatedAt;
  }
  await signInBrowser(context, user.api);
  await page.goto('/chats');
  const sidebar = new Sidebar(page);
  const chats = new ChatsPage(page);
  for (const rows of [sidebar.rowBoxes(), chats.main.locator('[data-session-row]')]) {
    for (const [preview, at] of Object.entries(updated)) {
      const row = rows.filter({ hasText: preview });
      await expect(row).toHaveCount(1);
      await expect(row.getByRole('link', { name: 'please write a file', exact: true })).toBeVisible();
      // The time is the row's own updatedAt (shown relative, exact in its datetime).
      await expect(row.locator('time')).toHaveAttribute('datetime', new Date(at).toISOString());
    }
  }
  await captureViews(page, 'h31b-chats-rows');
});

test('a folder import recognises a ChatGPT export by its content and lists every file it left out, with why', async ({ user, page, context }) => {
  const folder = join(mkdtempSync(join(e2eScratchDir(), 'folder-import-')), 'exports');
  mkdirSync(folder);
  writeFileSync(join(folder, 'my-chatgpt-export.json'), readFileSync(CHATGPT));
  writeFileSync(join(folder, 'notes.md'), '# what I exported\n');
  writeFileSync(join(folder, 'photo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
  await signInBrowser(context, user.api);
  const importPage = new ImportPage(page);
  await importPage.importFolder(folder);
  await expect(importPage.figure('Sessions added')).toHaveText('3');
  await expect(importPage.report.getByRole('heading', { name: 'Left out (2)' })).toBeVisible();
  // In the order the browser listed the folder's files.
  await expect(importPage.leftOut()).toHaveCount(2);
  await expect(importPage.leftOut().filter({ hasText: 'exports/notes.md' })).toHaveText(/^exports\/notes\.md not imported: plain text, not JSON, not a format this imports/);
  await expect(importPage.leftOut().filter({ hasText: 'exports/photo.png' })).toHaveText(/^exports\/photo\.png not imported: the file is not text \(binary\), not a format this imports/);
  await captureViews(page, 'h31b-import-folder');
});
