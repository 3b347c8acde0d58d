import { createSession, expect, mutate, query, test } from '../fixtures';

test('a bulk tag edit that would take one session past 32 tags changes no session and says which one', async ({ user }) => {
  const roomy = await createSession(user.api, { title: 'Roomy' });
  const full = await createSession(user.api, { title: 'Nearly full' });
  const many = Array.from({ length: 31 }, (_, i) => `t${i}`);
  expect((await mutate(user.api, 'tag.edit', { id: full.id, add: many })).status).toBe(200);

  const refused = await mutate(user.api, 'tag.bulk', { ids: [roomy.id, full.id], add: ['one', 'two'] });
  expect(refused.status).toBe(400);
  expect(refused.body.error?.message).toContain('“Nearly full”: a session has at most 32 tags; no session was changed');
  expect((await query<{ tags: string[] }>(user.api, 'session.get', { id: roomy.id })).data.tags).toEqual([]);
  expect((await query<{ tags: string[] }>(user.api, 'session.get', { id: full.id })).data.tags).toHaveLength(31);

  const done = await mutate<{ done: string[]; missing: string[] }>(user.api, 'tag.bulk', { ids: [roomy.id, full.id, 'nobody-has-this'], add: ['one'] });
  expect(done.data).toEqual({ done: [roomy.id, full.id], missing: ['nobody-has-this'] });
});
