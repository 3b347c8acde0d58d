import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { captureViews, e2eScratchDir, expect, freshDataDir, git, mutate, query, signInBrowser, startServerSignedIn, test } from '../fixtures';

interface Commit {
  sha: string;
  nodeIds: string[];
}

/** A session with two finished turns, by the API; its messages' ids in order. */
async function twoTurns(api: Parameters<typeof mutate>[0], id: string): Promise<string[]> {
  await mutate(api, 'session.create', { id, title: 'Noted session' });
  const ids: string[] = [];
  for (const [question, answer] of [['first question', 'first answer'], ['second question', 'the answer worth a note']]) {
    expect((await mutate(api, 'turn.begin', { sessionId: id })).status).toBe(200);
    ids.push((await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'user', content: question } })).data.id);
    ids.push((await mutate<{ id: string }>(api, 'message.append', { sessionId: id, message: { role: 'assistant', content: answer } })).data.id);
    expect((await mutate(api, 'turn.finalize', { sessionId: id })).status).toBe(200);
  }
  return ids;
}

test('a note on a message: written in place, live in a second tab, found by search, in the Markdown and JSON exports, and a git note on its turn commit in the bundle with the turn ids unchanged', async ({ context, user }) => {
  test.setTimeout(120_000);
  const ids = await twoTurns(user.api, 'noted');
  const before = (await query<{ commits: Commit[] }>(user.api, 'timeline.list', { sessionId: 'noted' })).data.commits.map((commit) => commit.sha);
  await signInBrowser(context, user.api);
  const [one, two] = [await context.newPage(), await context.newPage()];
  await one.goto('/sessions/noted');
  await two.goto('/sessions/noted');
  const answer = one.getByRole('article', { name: 'Assistant' }).filter({ hasText: 'the answer worth a note' });
  await answer.getByRole('button', { name: 'Add note' }).click();
  await answer.getByRole('textbox', { name: 'Note (Markdown)' }).fill('Why this matters: the **ocelot** rollout <script>window.noted=1</script>');
  await answer.getByRole('button', { name: 'Save note' }).click();
  // Markdown, rendered as a message's: the bold word is <strong>, the script tag is text and nothing of it ran
  await expect(answer.getByRole('region', { name: 'Note' }).locator('strong')).toHaveText('ocelot');
  await expect(answer.getByRole('region', { name: 'Note' })).toContainText('<script>window.noted=1</script>');
  expect(await one.evaluate(() => (window as unknown as { noted?: number }).noted)).toBeUndefined();
  const otherAnswer = two.getByRole('article', { name: 'Assistant' }).filter({ hasText: 'the answer worth a note' });
  await expect(otherAnswer.getByRole('region', { name: 'Note' })).toContainText('ocelot', { timeout: 2_000 });
  await captureViews(one, 'session-note');

  // search finds the note's words, at its message
  await expect
    .poll(async () => (await query<{ hits: Array<{ messageId: string | null; kind: string }> }>(user.api, 'session.search', { q: 'ocelot' })).data.hits)
    .toEqual([expect.objectContaining({ messageId: ids[3], kind: 'note' })]);

  // the exports
  const markdown = await (await user.api.get('/api/export/noted?format=md')).text();
  expect(markdown).toContain('> **Note**');
  expect(markdown.indexOf('ocelot')).toBeGreaterThan(markdown.indexOf('the answer worth a note'));
  const json = (await (await user.api.get('/api/export/noted?format=json')).json()) as { notes: Array<{ messageId: string; text: string }> };
  expect(json.notes).toEqual([expect.objectContaining({ messageId: ids[3], text: expect.stringContaining('ocelot') })]);

  // the bundle: a clone's notes ref shows it on the turn commit that added the message; the turn ids did not change
  const bundle = await (await user.api.get('/api/export/noted?format=bundle')).body();
  const scratch = mkdtempSync(join(e2eScratchDir(), 'notes-bundle-'));
  writeFileSync(join(scratch, 'noted.bundle'), bundle);
  git(scratch, 'clone', '-q', 'noted.bundle', 'clone');
  const clone = join(scratch, 'clone');
  git(clone, 'fetch', '-q', '../noted.bundle', 'refs/notes/*:refs/notes/*');
  const after = (await query<{ commits: Commit[] }>(user.api, 'timeline.list', { sessionId: 'noted' })).data.commits;
  expect(after.map((commit) => commit.sha)).toEqual(before);
  const turn = after.find((commit) => commit.nodeIds.includes(ids[3]!))!;
  expect(git(clone, 'notes', '--ref=entity-memory', 'show', turn.sha)).toContain('the **ocelot** rollout');
  expect(git(clone, 'rev-list', '--all', '--not', 'refs/notes/entity-memory').split('\n')).toEqual(expect.arrayContaining(before));
});

test('a note survives a restart of the server, and search still finds it', async () => {
  test.setTimeout(240_000);
  const dataDir = freshDataDir();
  const admin = { email: 'notes-admin@e2e.test', password: 'notes-admin-password' };
  let { server, api } = await startServerSignedIn({ port: 3561, dataDir, admin });
  try {
    const ids = await twoTurns(api, 'kept');
    expect((await mutate(api, 'note.set', { id: 'kept', messageId: ids[1], text: 'the **quetzal** detail' })).status).toBe(200);
    await api.dispose();
    await server.stop();
    ({ server, api } = await startServerSignedIn({ port: 3561, dataDir, admin, createAdmin: false }));
    expect((await query<Array<{ messageId: string; text: string }>>(api, 'note.list', { id: 'kept' })).data).toEqual([expect.objectContaining({ messageId: ids[1], text: 'the **quetzal** detail' })]);
    await expect
      .poll(async () => (await query<{ hits: Array<{ messageId: string | null }> }>(api, 'session.search', { q: 'quetzal' })).data.hits.map((hit) => hit.messageId))
      .toEqual([ids[1]]);
  } finally {
    await api.dispose();
    await server.stop();
  }
});
