import { bearer, createToken, expect, newApiContext, test } from '../fixtures';

// Issue 23 item 9: pages go by the sign-in cookie only; an unusable cookie is a sign-in redirect.
const PAGES = ['/', '/chats', '/settings', '/admin', '/projects'];

test('an API token beside a junk session cookie gets the sign-in redirect on every page, never a page or a 500', async ({ user }) => {
  const { token } = await createToken(user.api, 'page probe');
  const api = await newApiContext();
  for (const cookieName of ['next-auth.session-token', '__Secure-next-auth.session-token']) {
    for (const path of PAGES) {
      const response = await api.get(path, { headers: { ...bearer(token), cookie: `${cookieName}=not-a-sign-in` }, maxRedirects: 0 });
      expect(response.status(), `${cookieName} ${path}`).toBe(307);
      expect(new URL(response.headers()['location']!, 'http://x').pathname, path).toBe('/signin');
    }
  }
  await api.dispose();
});

test('a junk session cookie alone is a sign-in redirect too', async () => {
  const api = await newApiContext();
  for (const path of PAGES) {
    const response = await api.get(path, { headers: { cookie: 'next-auth.session-token=%E0%A4%A' }, maxRedirects: 0 });
    expect(response.status(), path).toBe(307);
    expect(new URL(response.headers()['location']!, 'http://x').pathname, path).toBe('/signin');
  }
  await api.dispose();
});

test('a page signed in by cookie shows the cookie\'s user, whatever token rides along', async ({ user, adminApi }) => {
  const { token } = await createToken(adminApi, 'admin agent');
  const response = await user.api.get('/settings', { headers: bearer(token), maxRedirects: 0 });
  expect(response.status()).toBe(200);
  const html = await response.text();
  expect(html).toContain(user.email);
  const admin = await user.api.get('/admin', { headers: bearer(token), maxRedirects: 0 });
  expect(admin.status()).toBe(404); // the cookie's user is no admin; the admin's token does not count
});
