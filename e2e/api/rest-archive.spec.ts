import { appendMessage, bearer, createSession, createToken, createUser, expect, getSession, newApiContext, query, storeSnapshot, test, type SessionRow } from '../fixtures';

test('POST /api/sessions/archive and /unarchive flip the flag and leave updated_at and the order alone', async ({ user }) => {
  for (const id of ['rest-a', 'rest-b', 'rest-c']) {
    await createSession(user.api, { id });
    await appendMessage(user.api, id, { role: 'user', content: id });
  }
  const order = async (scope: string) => (await query<{ rows: SessionRow[] }>(user.api, 'session.list', { scope })).data.rows.map((r) => r.id);
  const before = await getSession(user.api, 'rest-b');
  expect(await order('active')).toEqual(['rest-c', 'rest-b', 'rest-a']);

  const archived = await user.api.post('/api/sessions/archive', { data: { session_id: 'rest-b' } });
  expect(archived.status()).toBe(200);
  expect(await archived.json()).toEqual({ session_id: 'rest-b', archived: true });
  expect(await getSession(user.api, 'rest-b')).toEqual({ ...before, archived: true });
  expect(await order('active')).toEqual(['rest-c', 'rest-a']);
  expect(await order('archived')).toEqual(['rest-b']);
  // Archiving twice is fine.
  expect((await user.api.post('/api/sessions/archive', { data: { session_id: 'rest-b' } })).status()).toBe(200);

  const unarchived = await user.api.post('/api/sessions/unarchive', { data: { session_id: 'rest-b' } });
  expect(unarchived.status()).toBe(200);
  expect(await unarchived.json()).toEqual({ session_id: 'rest-b', archived: false });
  expect(await getSession(user.api, 'rest-b')).toEqual(before);
  expect(await order('active')).toEqual(['rest-c', 'rest-b', 'rest-a']);
});

test('a missing or invalid session_id is 400 "session_id required"; an unknown one 404 "unknown session"', async ({ user }) => {
  await createSession(user.api, { id: 'rest-x' });
  const before = storeSnapshot(user.id);
  for (const path of ['/api/sessions/archive', '/api/sessions/unarchive']) {
    for (const data of [{}, { session_id: '' }, { session_id: 42 }, { session_id: '../etc' }, { sessionId: 'rest-x' }, [], 'rest-x', null]) {
      const response = await user.api.post(path, { data: JSON.stringify(data), headers: { 'content-type': 'application/json' } });
      expect(response.status(), `${path} ${JSON.stringify(data)}`).toBe(400);
      expect(await response.json()).toEqual({ error: 'session_id required' });
    }
    const notJson = await user.api.post(path, { data: '{"session_id":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status()).toBe(400);
    const unknown = await user.api.post(path, { data: { session_id: 'no-such-session' } });
    expect(unknown.status()).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'unknown session' });
  }
  expect(storeSnapshot(user.id)).toBe(before);
});

test('authenticated like the API: Bearer works, no credentials 401, cross-origin cookie 403, someone else\'s session 404', async ({ user, adminApi, request }) => {
  await createSession(user.api, { id: 'rest-auth' });
  const { token } = await createToken(user.api);
  const agent = await newApiContext({ ...bearer(token), origin: 'https://elsewhere.example' });
  expect(await (await agent.post('/api/sessions/archive', { data: { session_id: 'rest-auth' } })).json()).toEqual({ session_id: 'rest-auth', archived: true });
  await agent.dispose();

  expect((await request.post('/api/sessions/unarchive', { data: { session_id: 'rest-auth' } })).status()).toBe(401);
  const crossOrigin = await user.api.post('/api/sessions/unarchive', { data: { session_id: 'rest-auth' }, headers: { origin: 'https://evil.example' } });
  expect(crossOrigin.status()).toBe(403);
  expect((await getSession(user.api, 'rest-auth')).archived).toBe(true);

  const other = await createUser(adminApi);
  const foreign = await other.api.post('/api/sessions/unarchive', { data: { session_id: 'rest-auth' } });
  expect(foreign.status()).toBe(404);
  expect(await foreign.json()).toEqual({ error: 'unknown session' });
  expect((await getSession(user.api, 'rest-auth')).archived).toBe(true);
  await other.api.dispose();
});
