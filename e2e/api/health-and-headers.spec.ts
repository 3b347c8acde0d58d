import { expect, newApiContext, query, test } from '../fixtures';

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
};

function expectSecurityHeaders(headers: Record<string, string>, kind: 'page' | 'other') {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(headers[name], name).toBe(value);
  const csp = headers['content-security-policy'];
  expect(csp).toContain("frame-ancestors 'none'");
  // Pages run scripts with a per-request nonce only; API answers and static files run none.
  if (kind === 'page') expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  else expect(csp).toMatch(/^default-src 'none'/);
}

test('GET /api/health answers 200 {ok:true} without authentication', async ({ request }) => {
  const response = await request.get('/api/health');
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({ ok: true });
  expectSecurityHeaders(response.headers(), 'other');
});

test('security headers on pages, redirects, API errors and static files', async ({ request }) => {
  const page = await request.get('/signin');
  expect(page.status()).toBe(200);
  expectSecurityHeaders(page.headers(), 'page');

  const redirect = await request.get('/settings', { maxRedirects: 0 });
  expect(redirect.status()).toBe(307);
  expectSecurityHeaders(redirect.headers(), 'page');

  const api = await newApiContext();
  const unauthorised = await query(api, 'user.me');
  expect(unauthorised.status).toBe(401);
  expectSecurityHeaders(unauthorised.response.headers(), 'other');

  const html = await page.text();
  const asset = /\/_next\/static\/[^"']+\.js/.exec(html)?.[0];
  expect(asset).toBeTruthy();
  const script = await request.get(asset!);
  expect(script.status()).toBe(200);
  expectSecurityHeaders(script.headers(), 'other');
  await api.dispose();
});

test('the page nonce is the one in the CSP header', async ({ request }) => {
  const response = await request.get('/signin');
  const nonce = /'nonce-([^']+)'/.exec(response.headers()['content-security-policy']!)?.[1];
  expect(nonce).toBeTruthy();
  expect(await response.text()).toContain(`nonce="${nonce}"`);
});
