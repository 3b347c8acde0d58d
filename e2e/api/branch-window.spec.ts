import { appendMessage, createSession, expect, query, test, type BranchMessage } from '../fixtures';

test('message.branch pages with limit and before; the old answer stays without them', async ({ user }) => {
  await createSession(user.api, { id: 'paged' });
  for (let i = 0; i < 7; i++) await appendMessage(user.api, 'paged', { id: `m${i}`, role: i % 2 ? 'assistant' : 'user', content: `message ${i}` });
  const whole = (await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'paged' })).data;
  expect(whole.map((m) => m.id)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5', 'm6']);

  const newest = await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'paged', limit: 3 });
  expect(newest.status).toBe(200);
  expect(newest.data).toEqual(whole.slice(-3));
  const older = await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'paged', limit: 3, before: newest.data[0]!.id });
  expect(older.data.map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
  const oldest = await query<BranchMessage[]>(user.api, 'message.branch', { sessionId: 'paged', limit: 3, before: 'm1' });
  expect(oldest.data.map((m) => [m.id, m.parentId])).toEqual([['m0', null]]);

  for (const bad of [{ limit: 0 }, { limit: 501 }, { limit: 1.5 }, { before: '../x' }]) {
    const refused = await query(user.api, 'message.branch', { sessionId: 'paged', ...bad });
    expect(refused.status, JSON.stringify(bad)).toBe(400);
  }
  expect((await query(user.api, 'message.branch', { sessionId: 'paged', limit: 2, before: 'nope' })).status).toBe(404);
});

test('branch.tipOf names the newest tip through a message', async ({ user }) => {
  await createSession(user.api, { id: 'tips' });
  await appendMessage(user.api, 'tips', { id: 'u1', role: 'user', content: 'q' });
  await appendMessage(user.api, 'tips', { id: 'a1', role: 'assistant', content: 'first' });
  await appendMessage(user.api, 'tips', { id: 'u2', role: 'user', content: 'more' });
  await appendMessage(user.api, 'tips', { id: 'a2', role: 'assistant', content: 'second', parentId: 'u1' });
  expect((await query(user.api, 'branch.tipOf', { sessionId: 'tips', nodeId: 'a1' })).data).toEqual({ headId: 'u2' });
  expect((await query(user.api, 'branch.tipOf', { sessionId: 'tips', nodeId: 'a2' })).data).toEqual({ headId: 'a2' });
  expect((await query(user.api, 'branch.tipOf', { sessionId: 'tips', nodeId: 'zz' })).status).toBe(404);
  expect((await query(user.api, 'branch.tipOf', { sessionId: 'nope', nodeId: 'a1' })).status).toBe(404);
});
