import { expect, mutate, newApiContext, sessionCookieOf, signIn, signedInContext, query, test } from '../fixtures';

test('a user changes their own password; the old one stops working', async ({ user }) => {
  const changed = await mutate(user.api, 'user.changePassword', { current: user.password, next: 'a-new-password' });
  expect(changed.status).toBe(200);
  expect(changed.data).toEqual({ ok: true });
  expect((await query(user.api, 'user.me')).status).toBe(200); // this sign-in goes on
  const old = await signIn(await newApiContext(), user.email, user.password, { 'x-forwarded-for': '10.5.0.1' });
  expect(sessionCookieOf(old)).toBeUndefined();
  const api = await signedInContext(user.email, 'a-new-password');
  expect((await query(api, 'user.me')).status).toBe(200);
  await api.dispose();
});

test('a wrong current password is 400 and changes nothing', async ({ user }) => {
  const refused = await mutate(user.api, 'user.changePassword', { current: 'not-it-at-all', next: 'a-new-password' });
  expect(refused.status).toBe(400);
  expect(refused.body.error?.message).toMatch(/current password is wrong/);
  const api = await signedInContext(user.email, user.password);
  await api.dispose();
});

test('a too short new password is 400 with a message', async ({ user }) => {
  const refused = await mutate(user.api, 'user.changePassword', { current: user.password, next: 'short' });
  expect(refused.status).toBe(400);
  expect(refused.body.error?.message).toBe('next: must be at least 8 characters');
});
