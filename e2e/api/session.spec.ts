import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import {
  appendMessage,
  bearer,
  createSession,
  createToken,
  createUser,
  expect,
  freshDataDir,
  getSession,
  mutate,
  newApiContext,
  PORT,
  query,
  startServerSignedIn,
  storeSnapshot,
  test,
  workspaceOf,
  type SessionRow,
} from '../fixtures';

const ROW_FIELDS = [
  'id', 'agentId', 'title', 'createdAt', 'updatedAt', 'source', 'channel', 'accountId', 'peerDisplay',
  'peerId', 'pinned', 'archived', 'group', 'status', 'unread', 'preview', 'project',
  // ours, derived from agentId and source (issue 28): who wrote it, named once, and how it came in
  'agentName', 'wayIn', 'agentGroup',
  // DESIGN §16: the user's tags and the session's state
  'tags', 'state',
  // DESIGN §17: the machine a collector brought it from (null here)
  'machine',
].sort();

interface Page {
  rows: SessionRow[];
  nextCursor: string | null;
}

test('create answers a row of the 17 fields (and ours) in ms; an existing id returns its row unchanged', async ({ user }) => {
  const before = Date.now();
  const row = await createSession(user.api, { id: 'my-first', title: 'First', source: 'cli', channel: 'slack', peerDisplay: 'Ann' });
  expect(Object.keys(row).sort()).toEqual(ROW_FIELDS);
  expect(row).toMatchObject({
    id: 'my-first', title: 'First', source: 'cli', channel: 'slack', peerDisplay: 'Ann', peerId: null, accountId: null,
    agentId: 'main', pinned: false, archived: false, unread: false, status: 'idle', preview: null, project: 'Home',
    agentName: 'cli', wayIn: 'API', agentGroup: 'cli',
  });
  expect(row.createdAt).toBeGreaterThanOrEqual(before - 1_000);
  expect(row.createdAt).toBeLessThanOrEqual(Date.now() + 1_000);
  expect(row.updatedAt).toBe(row.createdAt);

  const again = await createSession(user.api, { id: 'my-first', title: 'Other title' });
  expect(again).toEqual(row);

  const detail = await getSession(user.api, 'my-first');
  expect(detail).toMatchObject({ ...row, headId: null, projectId: 'default', turnCount: 0, workdirs: [] });

  // Without an id the server makes one.
  const generated = await createSession(user.api);
  expect(generated.id).toMatch(/^[0-9a-f]{16}$/);
});

test('list pages by cursor over every row once, newest updatedAt first, ties by id; limit over 200 is 400', async ({ user }) => {
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) ids.push((await createSession(user.api, { id: `page-${i}` })).id);
  // An append moves a session to the top.
  await appendMessage(user.api, 'page-2', { role: 'user', content: 'Bump me up' });

  const seen: SessionRow[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Page = (await query<Page>(user.api, 'session.list', { limit: 3, ...(cursor ? { cursor } : {}) })).data;
    expect(page.rows.length).toBeLessThanOrEqual(3);
    seen.push(...page.rows);
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  expect(pages).toBe(3);
  expect(seen.map((row) => row.id).sort()).toEqual([...ids].sort());
  expect(new Set(seen.map((row) => row.id)).size).toBe(seen.length);
  expect(seen[0]!.id).toBe('page-2');
  expect(seen[0]!.preview).toBe('Bump me up');
  for (let i = 1; i < seen.length; i++) {
    const [a, b] = [seen[i - 1]!, seen[i]!];
    expect(a.updatedAt > b.updatedAt || (a.updatedAt === b.updatedAt && a.id < b.id)).toBe(true);
  }

  // Everything in one page, and the limits.
  const all = await query<Page>(user.api, 'session.list', { limit: 200 });
  expect(all.data.rows.map((row) => row.id)).toEqual(seen.map((row) => row.id));
  expect(all.data.nextCursor).toBeNull();
  for (const limit of [201, 0, 1.5, '10']) {
    const refused = await query(user.api, 'session.list', { limit });
    expect(refused.status, String(limit)).toBe(400);
    expect(refused.body.error?.message).toMatch(/^limit: /);
  }
  const badCursor = await query(user.api, 'session.list', { cursor: 'not-a-cursor' });
  expect(badCursor.status).toBe(400);
  expect(badCursor.body.error?.message).toMatch(/cursor/);
  // No input at all is the default page.
  expect((await query<Page>(user.api, 'session.list')).data.rows).toHaveLength(7);
});

test('list filters: scope, pinned, unread, q on title and preview (case-insensitive)', async ({ user }) => {
  await createSession(user.api, { id: 'f-alpha', title: 'Alpha project notes' });
  await createSession(user.api, { id: 'f-beta' });
  await appendMessage(user.api, 'f-beta', { role: 'user', content: 'Something about ALPHAbets' });
  await createSession(user.api, { id: 'f-gamma', title: 'Gamma' });
  expect((await mutate(user.api, 'session.update', { id: 'f-gamma', pinned: true, unread: true })).status).toBe(200);
  expect((await mutate(user.api, 'session.setArchived', { id: 'f-alpha', archived: true })).status).toBe(200);

  const ids = async (input: Record<string, unknown>) => (await query<Page>(user.api, 'session.list', input)).data.rows.map((row) => row.id).sort();
  expect(await ids({})).toEqual(['f-beta', 'f-gamma']);
  expect(await ids({ scope: 'archived' })).toEqual(['f-alpha']);
  expect(await ids({ scope: 'all' })).toEqual(['f-alpha', 'f-beta', 'f-gamma']);
  expect(await ids({ scope: 'all', q: 'alpha' })).toEqual(['f-alpha', 'f-beta']);
  expect(await ids({ pinned: true })).toEqual(['f-gamma']);
  expect(await ids({ unread: true })).toEqual(['f-gamma']);
  expect((await query(user.api, 'session.list', { scope: 'everything' })).status).toBe(400);
});

test('rename, pin, unread, group and archive keep updatedAt and the order; a rename locks the title', async ({ user }) => {
  for (const id of ['keep-a', 'keep-b', 'keep-c']) {
    await createSession(user.api, { id });
    await appendMessage(user.api, id, { role: 'user', content: `message of ${id}` });
  }
  const list = async (scope = 'active') => (await query<Page>(user.api, 'session.list', { scope })).data.rows;
  const order = (await list()).map((row) => row.id);
  expect(order).toEqual(['keep-c', 'keep-b', 'keep-a']);
  const stamps = new Map((await list()).map((row) => [row.id, row.updatedAt]));

  const renamed = await mutate<SessionRow>(user.api, 'session.update', { id: 'keep-a', title: '  My name  ' });
  expect(renamed.status).toBe(200);
  expect(renamed.data).toMatchObject({ title: 'My name', updatedAt: stamps.get('keep-a') });
  expect((await getSession(user.api, 'keep-a')).userTitled).toBe(true);
  expect((await mutate(user.api, 'session.update', { id: 'keep-b', pinned: true, unread: true, group: 'work', status: 'failed' })).data).toMatchObject({
    pinned: true, unread: true, group: 'work', status: 'failed', updatedAt: stamps.get('keep-b'),
  });
  const archived = await mutate<SessionRow>(user.api, 'session.setArchived', { id: 'keep-c', archived: true });
  expect(archived.data).toMatchObject({ archived: true, updatedAt: stamps.get('keep-c') });
  expect((await list()).map((row) => row.id)).toEqual(['keep-b', 'keep-a']);
  expect((await mutate(user.api, 'session.setArchived', { id: 'keep-c', archived: false })).status).toBe(200);

  const after = await list();
  expect(after.map((row) => row.id)).toEqual(order);
  for (const row of after) expect(row.updatedAt).toBe(stamps.get(row.id));
});

test('an empty title is 400 and changes nothing; unknown ids are 404 and create nothing', async ({ user }) => {
  await createSession(user.api, { id: 'titled', title: 'Kept' });
  const before = storeSnapshot(user.id);
  for (const title of ['', '   ', '\n']) {
    const refused = await mutate(user.api, 'session.update', { id: 'titled', title });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toMatch(/^title: must not be empty/);
  }
  for (const [path, input, kind] of [
    ['session.get', { id: 'ghost' }, 'query'],
    ['session.update', { id: 'ghost', title: 'x' }, 'mutation'],
    ['session.setArchived', { id: 'ghost', archived: true }, 'mutation'],
    ['session.regenerateTitle', { id: 'ghost' }, 'mutation'],
    ['session.setWorkdirs', { id: 'ghost', workdirs: [] }, 'mutation'],
    ['session.delete', { id: 'ghost' }, 'mutation'],
  ] as const) {
    const answer = kind === 'query' ? await query(user.api, path, input) : await mutate(user.api, path, input);
    expect(answer.status, path).toBe(404);
    expect(answer.body.error?.message).toBe('unknown session: ghost');
  }
  expect(storeSnapshot(user.id)).toBe(before);
  expect((await getSession(user.api, 'titled')).title).toBe('Kept');
});

test('regenerateTitle asks the model and does not lock the title', async ({ user }) => {
  await createSession(user.api, { id: 'retitle', title: 'A name I chose' });
  const empty = await mutate(user.api, 'session.regenerateTitle', { id: 'retitle' });
  expect(empty.status).toBe(412);
  expect(empty.body.error?.message).toMatch(/no messages/);

  await appendMessage(user.api, 'retitle', { role: 'user', content: 'plan a trip to lisbon in may' });
  const regenerated = await mutate<SessionRow>(user.api, 'session.regenerateTitle', { id: 'retitle' });
  expect(regenerated.status).toBe(200);
  // The loopback model server titles a conversation by its first words.
  expect(regenerated.data.title).toBe('Plan A Trip To');
  expect((await getSession(user.api, 'retitle')).userTitled).toBe(false);
});

test('regenerateTitle without a configured model is 412 with a clear message', async () => {
  test.setTimeout(90_000);
  const { server, api } = await startServerSignedIn({
    port: PORT + 4,
    dataDir: freshDataDir(),
    admin: { email: 'nomodel@e2e.test', password: 'nomodel-password' },
    env: { OPENPROGRAM_LLM_BASE_URL: '', OPENPROGRAM_LLM_MODEL: '' },
  });
  try {
    await createSession(api, { id: 'nomodel' });
    await appendMessage(api, 'nomodel', { role: 'user', content: 'hello' });
    const refused = await mutate(api, 'session.regenerateTitle', { id: 'nomodel' });
    expect(refused.status).toBe(412);
    expect(refused.body.error).toMatchObject({ message: 'no model is configured, so titles cannot be generated', data: { code: 'PRECONDITION_FAILED' } });
    await api.dispose();
  } finally {
    await server.stop();
  }
});

test('delete removes the session for good; a second delete is 404', async ({ user }) => {
  await createSession(user.api, { id: 'doomed' });
  await appendMessage(user.api, 'doomed', { role: 'user', content: 'bye' });
  const deleted = await mutate(user.api, 'session.delete', { id: 'doomed' });
  expect(deleted.status).toBe(200);
  expect(deleted.data).toEqual({ id: 'doomed' });
  expect((await query(user.api, 'session.get', { id: 'doomed' })).status).toBe(404);
  expect((await query<Page>(user.api, 'session.list', { scope: 'all' })).data.rows).toEqual([]);
  expect((await mutate(user.api, 'session.delete', { id: 'doomed' })).status).toBe(404);
});

test('bulk archives, unarchives, marks read and deletes; unknown and foreign ids come back missing', async ({ user, adminApi }) => {
  for (const id of ['bulk-1', 'bulk-2', 'bulk-3']) await createSession(user.api, { id });
  await mutate(user.api, 'session.update', { id: 'bulk-1', unread: true });
  const foreign = await createSession(adminApi);
  const foreignBefore = await getSession(adminApi, foreign.id);

  const bulk = (ids: string[], action: string) => mutate<{ done: string[]; missing: string[] }>(user.api, 'session.bulk', { ids, action });
  expect((await bulk(['bulk-1', 'bulk-2', 'nope', foreign.id], 'archive')).data).toEqual({ done: ['bulk-1', 'bulk-2'], missing: ['nope', foreign.id] });
  expect((await query<Page>(user.api, 'session.list', { scope: 'archived' })).data.rows.map((r) => r.id).sort()).toEqual(['bulk-1', 'bulk-2']);
  expect((await bulk(['bulk-1'], 'unarchive')).data).toEqual({ done: ['bulk-1'], missing: [] });
  expect((await bulk(['bulk-1', 'bulk-1'], 'markRead')).data).toEqual({ done: ['bulk-1'], missing: [] });
  expect((await getSession(user.api, 'bulk-1'))).toMatchObject({ unread: false, archived: false });
  expect((await bulk(['bulk-2', 'bulk-3', foreign.id], 'delete')).data).toEqual({ done: ['bulk-2', 'bulk-3'], missing: [foreign.id] });
  expect((await query<Page>(user.api, 'session.list', { scope: 'all' })).data.rows.map((r) => r.id)).toEqual(['bulk-1']);
  // The admin's session was not touched.
  expect(await getSession(adminApi, foreign.id)).toEqual(foreignBefore);

  expect((await bulk([], 'archive')).status).toBe(400);
  expect((await bulk(['../x'], 'archive')).status).toBe(400);
});

test('setWorkdirs takes folders inside the workspace, at any time; others are refused', async ({ user }) => {
  await createSession(user.api, { id: 'dirs' });
  const docs = join(workspaceOf(user.id), 'docs');
  mkdirSync(docs, { recursive: true });
  const set = await mutate<SessionRow>(user.api, 'session.setWorkdirs', { id: 'dirs', workdirs: ['docs', docs] });
  expect(set.status).toBe(200);
  expect(Object.keys(set.data).sort()).toEqual(ROW_FIELDS);
  expect((await getSession(user.api, 'dirs')).workdirs).toEqual([docs]);

  for (const workdirs of [['/etc'], ['../../..'], ['missing-folder']]) {
    const refused = await mutate(user.api, 'session.setWorkdirs', { id: 'dirs', workdirs });
    expect(refused.status, workdirs[0]).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
  }
  expect((await getSession(user.api, 'dirs')).workdirs).toEqual([docs]);
  expect((await mutate(user.api, 'session.setWorkdirs', { id: 'dirs', workdirs: [] })).status).toBe(200);
  expect((await getSession(user.api, 'dirs')).workdirs).toEqual([]);
});

test('each user has their own sessions, even under the same id', async ({ user, adminApi }) => {
  const other = await createUser(adminApi);
  await createSession(user.api, { id: 'same-id', title: 'mine' });
  await createSession(other.api, { id: 'same-id', title: 'theirs' });
  expect((await getSession(user.api, 'same-id')).title).toBe('mine');
  expect((await getSession(other.api, 'same-id')).title).toBe('theirs');
  await mutate(other.api, 'session.delete', { id: 'same-id' });
  expect((await getSession(user.api, 'same-id')).title).toBe('mine');
  // A caller with the user's API token is the same user, with the same store.
  const { token } = await createToken(user.api, 'agent');
  const agent = await newApiContext(bearer(token));
  expect((await query<SessionRow>(agent, 'session.get', { id: 'same-id' })).data.title).toBe('mine');
  await agent.dispose();
  await other.api.dispose();
});
