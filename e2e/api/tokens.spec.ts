import { bearer, createToken, expect, mutate, newApiContext, query, test } from '../fixtures';

interface TokenInfo {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
}

test('create shows the token once; list shows name and last use, never the token', async ({ user }) => {
  const created = await mutate<{ id: string; token: string }>(user.api, 'token.create', { name: 'my agent' });
  expect(created.status).toBe(200);
  expect(created.data.token).toMatch(/^em_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
  const before = await query<TokenInfo[]>(user.api, 'token.list');
  expect(before.data).toEqual([expect.objectContaining({ id: created.data.id, name: 'my agent', lastUsedAt: null, expiresAt: null })]);
  expect(JSON.stringify(before.body)).not.toContain(created.data.token);

  const api = await newApiContext();
  const me = await query<{ email: string; via: string }>(api, 'user.me', undefined, bearer(created.data.token));
  expect(me.status).toBe(200);
  expect(me.data).toMatchObject({ email: user.email, via: 'token' });
  const after = await query<TokenInfo[]>(user.api, 'token.list');
  expect(after.data[0]!.lastUsedAt).toEqual(expect.any(Number));
  await api.dispose();
});

test('a revoked token stops working at once; another user cannot revoke it', async ({ user, adminApi }) => {
  const { id, token } = await createToken(user.api);
  const api = await newApiContext();
  expect((await query(api, 'user.me', undefined, bearer(token))).status).toBe(200);

  const foreign = await mutate(adminApi, 'token.revoke', { id });
  expect(foreign.status).toBe(404);
  expect((await query(api, 'user.me', undefined, bearer(token))).status).toBe(200);

  expect((await mutate(user.api, 'token.revoke', { id })).status).toBe(200);
  const revoked = await query(api, 'user.me', undefined, bearer(token));
  expect(revoked.status).toBe(401);
  expect(revoked.body.error?.message).toMatch(/invalid, expired or revoked/);
  expect((await query<TokenInfo[]>(user.api, 'token.list')).data).toEqual([]);
  await api.dispose();
});

test('an expired token stops working', async ({ user }) => {
  const created = await mutate<{ token: string }>(user.api, 'token.create', { name: 'short', expiresAt: Date.now() + 1_500 });
  expect(created.status).toBe(200);
  const api = await newApiContext();
  expect((await query(api, 'user.me', undefined, bearer(created.data.token))).status).toBe(200);
  await expect
    .poll(async () => (await query(api, 'user.me', undefined, bearer(created.data.token))).status, { timeout: 10_000 })
    .toBe(401);
  await api.dispose();
});

test('an expiry in the past is refused with 400', async ({ user }) => {
  const refused = await mutate(user.api, 'token.create', { name: 'past', expiresAt: Date.now() - 1_000 });
  expect(refused.status).toBe(400);
  expect(refused.body.error?.message).toMatch(/future/);
});

test('a token cannot create, list or revoke tokens, nor call admin procedures (403)', async ({ adminApi }) => {
  // Even an admin's token: tokens never carry admin rights.
  const { id, token } = await createToken(adminApi, 'admin agent');
  const api = await newApiContext();
  const auth = bearer(token);
  for (const answer of [
    await mutate(api, 'token.create', { name: 'minted' }, auth),
    await query(api, 'token.list', undefined, auth),
    await mutate(api, 'token.revoke', { id }, auth),
    await query(api, 'admin.listUsers', undefined, auth),
    await mutate(api, 'admin.createUser', { email: 'by-token@e2e.test', password: 'password-1' }, auth),
    await mutate(api, 'admin.setSignup', { open: true }, auth),
    await mutate(api, 'user.changePassword', { current: 'x', next: 'password-2' }, auth),
  ]) {
    expect(answer.status).toBe(403);
    expect(answer.body.error?.data.code).toBe('FORBIDDEN');
  }
  expect((await query(api, 'user.me', undefined, auth)).status).toBe(200);
  await api.dispose();
});

test('a malformed Authorization header is 401, not a fallback to the cookie', async ({ user }) => {
  expect((await query(user.api, 'user.me', undefined, { authorization: 'Basic abc' })).status).toBe(401);
  expect((await query(user.api, 'user.me', undefined, bearer('em_not-a-real-token'))).status).toBe(401);
  expect((await query(user.api, 'user.me')).status).toBe(200);
});
