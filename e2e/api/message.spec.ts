import { appendMessage, createSession, expect, getSession, mutate, query, storeSnapshot, test, type BranchMessage, type NodePage } from '../fixtures';

interface BranchInfo {
  headId: string;
  name: string;
  createdAt: number;
  updatedAt: number;
  current: boolean;
}

test('append: the message shape, the head follows, a tool result hangs off its caller', async ({ user }) => {
  await createSession(user.api, { id: 'talk' });
  const before = Date.now();
  const u1 = await appendMessage(user.api, 'talk', { role: 'user', content: 'What is 2+2?' });
  expect(u1).toEqual({
    id: expect.stringMatching(/^[0-9a-f]{12}$/), seq: 0, role: 'user', content: 'What is 2+2?', parentId: null, calledBy: null,
    name: '', input: null, metadata: {}, createdAt: expect.any(Number),
  });
  expect(u1.createdAt).toBeGreaterThanOrEqual(before - 1_000);
  expect((await getSession(user.api, 'talk')).headId).toBe(u1.id);

  const a1 = await appendMessage(user.api, 'talk', { id: 'a1', role: 'assistant', content: 'Let me compute.', metadata: { model: 'm' } });
  expect(a1).toMatchObject({ id: 'a1', seq: 1, parentId: u1.id, metadata: { model: 'm' } });
  const tool = await appendMessage(user.api, 'talk', { id: 't1', role: 'tool', calledBy: 'a1', name: 'calc', input: { expr: '2+2' }, content: { result: 4 } });
  expect(tool).toMatchObject({ id: 't1', seq: 2, role: 'tool', parentId: null, calledBy: 'a1', name: 'calc', input: { expr: '2+2' }, content: '{"result":4}' });
  const a2 = await appendMessage(user.api, 'talk', { id: 'a2', role: 'assistant', content: '4', parentId: 'a1' });
  expect((await getSession(user.api, 'talk')).headId).toBe('a2');

  const branch = (await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'talk' })).data;
  expect(branch.map((m) => m.id)).toEqual([u1.id, 'a1', 'a2']);
  expect(branch[1]!.toolCalls.map((m) => m.id)).toEqual(['t1']);
  expect(branch[1]!.siblings).toEqual(['a1']);
  const nodes = (await query<NodePage>(user.api, 'message.nodes', { sessionId: 'talk' })).data.messages;
  expect(nodes.map((m) => [m.seq, m.id])).toEqual([[0, u1.id], [1, 'a1'], [2, 't1'], [3, a2.id]]);
});

test('the same id again: the same message back; other content is CONFLICT and writes nothing', async ({ user }) => {
  await createSession(user.api, { id: 'idem' });
  const first = await appendMessage(user.api, 'idem', { id: 'm1', role: 'user', content: 'once' });
  const again = await appendMessage(user.api, 'idem', { id: 'm1', role: 'user', content: 'once' });
  expect(again).toEqual(first);
  const snapshot = storeSnapshot(user.id);
  const conflict = await mutate(user.api, 'message.append', { sessionId: 'idem', message: { id: 'm1', role: 'user', content: 'twice' } });
  expect(conflict.status).toBe(409);
  expect(conflict.body.error?.message).toMatch(/already exists with other content/);
  expect(storeSnapshot(user.id)).toBe(snapshot);
  expect((await query<NodePage>(user.api, 'message.nodes', { sessionId: 'idem' })).data.messages).toHaveLength(1);
});

test('append refuses what cannot be a message, with the field in the message, and writes nothing', async ({ user }) => {
  await createSession(user.api, { id: 'strict' });
  await appendMessage(user.api, 'strict', { id: 'a', role: 'user', content: 'x' });
  const snapshot = storeSnapshot(user.id);
  const cases: Array<[unknown, number, RegExp]> = [
    [{ role: 'user', content: 42 }, 400, /^message\.content: /],
    [{ role: 'user' }, 400, /^message\.content: /],
    [{ role: 'tool', content: 'x' }, 400, /^message\.calledBy: /],
    [{ role: 'tool', content: 'x', calledBy: 'a', parentId: 'a' }, 400, /^message\.parentId: /],
    [{ role: 'user', content: 'x', parentId: 'nowhere' }, 404, /unknown parent message: nowhere/],
    [{ role: 'tool', content: 'x', calledBy: 'nowhere' }, 404, /unknown calledBy message: nowhere/],
    [{ role: 'user', content: 'x', id: '../../etc' }, 400, /^message\.id: /],
    [{ role: 'user', content: 'x', metadata: [] }, 400, /^message\.metadata: /],
    ['text', 400, /^message: /],
  ];
  for (const [message, status, text] of cases) {
    const refused = await mutate(user.api, 'message.append', { sessionId: 'strict', message });
    expect(refused.status, JSON.stringify(message)).toBe(status);
    expect(refused.body.error?.message).toMatch(text);
  }
  expect(storeSnapshot(user.id)).toBe(snapshot);
});

test('retry forks: the next reply becomes a sibling and the head; setHead switches back; recency kept', async ({ user }) => {
  await createSession(user.api, { id: 'fork' });
  const u1 = await appendMessage(user.api, 'fork', { id: 'u1', role: 'user', content: 'Tell me a joke' });
  await appendMessage(user.api, 'fork', { id: 'a1', role: 'assistant', content: 'Joke one' });
  const updatedAt = (await getSession(user.api, 'fork')).updatedAt;

  const retried = await mutate<{ parentId: string | null }>(user.api, 'branch.retry', { sessionId: 'fork', assistantId: 'a1' });
  expect(retried.status).toBe(200);
  expect(retried.data).toEqual({ parentId: u1.id });
  expect(await getSession(user.api, 'fork')).toMatchObject({ headId: 'u1', updatedAt });

  const a2 = await appendMessage(user.api, 'fork', { id: 'a2', role: 'assistant', content: 'Joke two' });
  expect(a2.parentId).toBe('u1');
  expect((await getSession(user.api, 'fork')).headId).toBe('a2');
  const branch = (await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'fork' })).data;
  expect(branch.map((m) => m.id)).toEqual(['u1', 'a2']);
  expect(branch[1]!.siblings).toEqual(['a1', 'a2']);

  const branches = (await query<BranchInfo[]>(user.api, 'branch.list', { sessionId: 'fork' })).data;
  expect(branches.map((b) => [b.headId, b.current])).toEqual([['a1', false], ['a2', true]]);
  for (const b of branches) expect(b).toEqual({ headId: expect.any(String), name: expect.any(String), createdAt: expect.any(Number), updatedAt: expect.any(Number), current: expect.any(Boolean) });

  const before = (await getSession(user.api, 'fork')).updatedAt;
  expect((await mutate(user.api, 'branch.setHead', { sessionId: 'fork', headId: 'a1' })).data).toEqual({ headId: 'a1' });
  expect(await getSession(user.api, 'fork')).toMatchObject({ headId: 'a1', updatedAt: before });
  expect((await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'fork' })).data.map((m) => m.id)).toEqual(['u1', 'a1']);
  // Any head can be read without switching to it.
  expect((await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'fork', headId: 'a2' })).data.map((m) => m.id)).toEqual(['u1', 'a2']);
  expect((await query<BranchInfo[]>(user.api, 'branch.list', { sessionId: 'fork' })).data.find((b) => b.current)?.headId).toBe('a1');
});

test('branch and retry refusals: unknown messages 404, wrong kinds 400', async ({ user }) => {
  await createSession(user.api, { id: 'refusals' });
  await appendMessage(user.api, 'refusals', { id: 'u1', role: 'user', content: 'hi' });
  await appendMessage(user.api, 'refusals', { id: 'a1', role: 'assistant', content: 'hello' });
  await appendMessage(user.api, 'refusals', { id: 't1', role: 'tool', calledBy: 'a1', content: 'out' });
  expect((await mutate(user.api, 'branch.setHead', { sessionId: 'refusals', headId: 'nope' })).status).toBe(404);
  expect((await mutate(user.api, 'branch.setHead', { sessionId: 'refusals', headId: 't1' })).status).toBe(400);
  expect((await mutate(user.api, 'branch.retry', { sessionId: 'refusals', assistantId: 'nope' })).status).toBe(404);
  expect((await mutate(user.api, 'branch.retry', { sessionId: 'refusals', assistantId: 'u1' })).status).toBe(400);
  expect((await query(user.api, 'message.branch', { sessionId: 'refusals', headId: 'nope' })).status).toBe(404);
  expect((await query(user.api, 'message.branch', { sessionId: 'refusals', headId: 't1' })).status).toBe(400);
  expect((await getSession(user.api, 'refusals')).headId).toBe('a1');
  // An empty session has an empty branch and no branches.
  await createSession(user.api, { id: 'empty' });
  expect((await query(user.api, 'message.branch', { sessionId: 'empty' })).data).toEqual([]);
  expect((await query(user.api, 'branch.list', { sessionId: 'empty' })).data).toEqual([]);
});

test('a message over 1 MiB is 413 PAYLOAD_TOO_LARGE with a message and writes nothing; a large one under it reads back whole', async ({ user }) => {
  await createSession(user.api, { id: 'sized' });
  const first = await appendMessage(user.api, 'sized', { role: 'user', content: 'small' });
  const snapshot = storeSnapshot(user.id);
  for (const message of [
    { role: 'assistant', content: 'x'.repeat(1024 * 1024 + 1) },
    { role: 'assistant', content: 'ok', input: { blob: 'y'.repeat(1024 * 1024) } },
    { role: 'assistant', content: 'é'.repeat(600 * 1024) },
  ]) {
    const refused = await mutate(user.api, 'message.append', { sessionId: 'sized', message });
    expect(refused.status).toBe(413);
    expect(refused.body.error?.data?.code).toBe('PAYLOAD_TOO_LARGE');
    expect(refused.body.error?.message).toMatch(/^message is 1\.\d MiB \(content, input and metadata\); the limit is 1 MiB\. Save large output as an attachment instead\.$/);
  }
  expect(storeSnapshot(user.id)).toBe(snapshot);
  expect((await getSession(user.api, 'sized')).headId).toBe(first.id);

  const large = `# Big\n${'z'.repeat(900 * 1024)}`;
  const reply = await appendMessage(user.api, 'sized', { role: 'assistant', content: large });
  const branch = (await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'sized' })).data;
  expect(branch.map((m) => m.content.length)).toEqual([5, large.length]);
  expect(branch[1]!.content).toBe(large);
  expect(branch[1]!.id).toBe(reply.id);
});
