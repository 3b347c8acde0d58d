import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { appendMessage, bearer, createSession, createToken, e2eDataDir, expect, mutate, query, stateDirOf, test } from '../fixtures';

/** The shared sample transcripts (shared/ beside the repo, as the unit tests read them). */
const CLAUDE_FILE = join(process.cwd(), '..', 'shared', 'fixtures', 'import', 'claude-code', '-home-user-proj', '3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl');
const CLAUDE_ID = 'cc-3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f';
/** its first user message: "The test in tests/test_dates.py is failing. Can you find out why?" */
const CLAUDE_PROMPT_ID = 'cc000000-0000-4000-8000-000000000001';

interface SearchPage {
  hits: Array<{ sessionId: string; messageId: string | null; kind: string; archived: boolean; snippet: Array<{ text: string; match: boolean }> }>;
  nextCursor: string | null;
  status: { state: 'ready' | 'catching_up'; done: number; total: number };
}

test('session.search: own text only, archives marked, deletes gone, bad input a 400', async ({ user, adminApi }) => {
  const kept = await createSession(user.api, { title: 'Kept' });
  const hit = await appendMessage(user.api, kept.id, { role: 'user', content: 'The basilisk protocol needs a retry budget' });
  const gone = await createSession(user.api, { title: 'Gone' });
  await appendMessage(user.api, gone.id, { role: 'user', content: 'basilisk notes to delete' });

  const found = await query<SearchPage>(user.api, 'session.search', { q: 'basilisk' });
  expect(found.status).toBe(200);
  expect(found.data.hits.map((h) => h.sessionId).sort()).toEqual([kept.id, gone.id].sort());
  expect(found.data.hits.find((h) => h.sessionId === kept.id)).toMatchObject({ messageId: hit.id, kind: 'user' });

  // Another user: nothing, even for the exact words.
  expect((await query<SearchPage>(adminApi, 'session.search', { q: 'basilisk protocol' })).data.hits).toEqual([]);

  expect((await mutate(user.api, 'session.setArchived', { id: kept.id, archived: true })).status).toBe(200);
  expect((await mutate(user.api, 'session.delete', { id: gone.id })).status).toBe(200);
  const after = await query<SearchPage>(user.api, 'session.search', { q: 'basilisk' });
  expect(after.data.hits.map((h) => [h.sessionId, h.archived])).toEqual([[kept.id, true]]);
  expect((await query<SearchPage>(user.api, 'session.search', { q: 'basilisk', scope: 'active' })).data.hits).toEqual([]);

  for (const bad of [{ q: '' }, { q: 'x'.repeat(501) }, { q: 'basilisk', cursor: 'not-ours' }, { q: 'basilisk', limit: 101 }, { q: 'basilisk', extra: 1 }]) {
    const refused = await query(user.api, 'session.search', bad);
    expect(refused.status, JSON.stringify(bad)).toBe(400);
    expect(refused.body.error?.data.code).toBe('BAD_REQUEST');
  }
});

test('an index deleted while the server runs is rebuilt from the sessions; nothing is lost', async ({ user }) => {
  const me = (await query<{ id: string }>(user.api, 'user.me')).data;
  const session = await createSession(user.api, { title: 'Survivor' });
  const before = await appendMessage(user.api, session.id, { role: 'user', content: 'pangolin written before the loss' });
  expect((await query<SearchPage>(user.api, 'session.search', { q: 'pangolin' })).data.hits).toHaveLength(1);

  const path = join(stateDirOf(me.id), 'search.sqlite');
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
  const after = await appendMessage(user.api, session.id, { role: 'assistant', content: 'pangolin written after the loss' });

  await expect
    .poll(async () => {
      const page = (await query<SearchPage>(user.api, 'session.search', { q: 'pangolin' })).data;
      return { state: page.status.state, ids: page.hits.map((h) => h.messageId).sort() };
    })
    .toEqual({ state: 'ready', ids: [before.id, after.id].sort() });
});

test('imported through POST /api/import: a word only in a message body is found by session.search and `sessions search`, no reindex (issue 28)', async ({ user }) => {
  // The index exists before the import (any earlier search opens it).
  expect((await query<SearchPage>(user.api, 'session.search', { q: 'test_dates' })).data.hits).toEqual([]);
  const { token } = await createToken(user.api);
  const imported = await user.api.post(`/api/import?name=${encodeURIComponent('-home-user-proj/3f6c1d2e-8a4b-4c7d-9e1f-2a3b4c5d6e7f.jsonl')}`, {
    headers: { ...bearer(token), 'content-type': 'application/octet-stream' },
    data: readFileSync(CLAUDE_FILE),
  });
  expect(imported.status()).toBe(200);
  expect(await imported.json()).toMatchObject({ added: 1 });

  // Asked once, right after the import answered: no polling, no reindex.
  const found = await query<SearchPage>(user.api, 'session.search', { q: 'test_dates' });
  expect(found.status).toBe(200);
  expect(found.data.hits.map((hit) => [hit.sessionId, hit.messageId])).toContainEqual([CLAUDE_ID, CLAUDE_PROMPT_ID]);

  // The CLI against the running server, acting for this user.
  const cli = spawnSync(process.execPath, [join(process.cwd(), 'cli', 'bin.mjs'), '--data', e2eDataDir(), '--user', user.email, 'sessions', 'search', 'test_dates', '--json'], { encoding: 'utf8' });
  expect(cli.status, cli.stderr).toBe(0);
  expect(cli.stdout).toContain(`"messageId":"${CLAUDE_PROMPT_ID}"`);
});
