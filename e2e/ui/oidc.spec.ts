import { createServer, type Server } from 'node:net';
import type { APIRequestContext, Browser, Page } from '@playwright/test';
import { expect, freshDataDir, query, startServerSignedIn, test, type ServerProcess } from '../fixtures';
import { startOidcProvider, type OidcMisbehaviour, type OidcTestProvider } from '../fixtures/oidc-provider';
import { SignInPage } from '../pages/sign-in';

// Issue 36 item 2 (DESIGN §17): single sign-on through a real OpenID provider on loopback.
const ADMIN = { email: 'root@example.org', password: 'root-password-0' };
const ADMIN_GROUP = 'em-admins';
const ACCOUNTS = [
  { id: 'ada-subject', email: 'ada@example.org', groups: ['staff', ADMIN_GROUP] },
  { id: 'bo-subject', email: 'bo@example.org', groups: ['staff'] },
  { id: 'cy-subject', email: 'cy@example.org', groups: ['staff'] },
  { id: 'eve-subject', email: 'eve@elsewhere.test', groups: [ADMIN_GROUP] },
  // The password admin's email at the provider: never joined to that account.
  { id: 'root-lookalike', email: ADMIN.email, groups: [ADMIN_GROUP] },
];
const REFUSED_ANSWER = 'The sign-in provider’s answer was refused: it was not meant for this server, came from another issuer, or was expired or already used. Sign in again.';

/** A port nothing listens on now: the server's own, which the provider's client must know first. */
async function freePort(): Promise<number> {
  const probe: Server = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

let provider: OidcTestProvider;
let server: ServerProcess;
let api: APIRequestContext;
let providerName: string;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(150_000);
  const port = await freePort();
  provider = await startOidcProvider({ redirectUri: `http://localhost:${port}/api/auth/callback/oidc`, accounts: ACCOUNTS });
  providerName = new URL(provider.issuer).host;
  ({ server, api } = await startServerSignedIn({
    port,
    dataDir: freshDataDir(),
    admin: ADMIN,
    env: {
      OPENPROGRAM_OIDC_ISSUER: provider.issuer,
      OPENPROGRAM_OIDC_CLIENT_ID: provider.clientId,
      OPENPROGRAM_OIDC_CLIENT_SECRET: provider.clientSecret,
      OPENPROGRAM_OIDC_ADMIN_GROUP: ADMIN_GROUP,
      OPENPROGRAM_OIDC_ALLOWED_DOMAINS: 'example.org',
    },
  }));
});

test.afterAll(async () => {
  await api?.dispose();
  await server?.stop();
  await provider?.close();
});

interface UserRow {
  email: string;
  admin: boolean;
  signIn: { kind: string; issuer?: string };
}

async function users(): Promise<UserRow[]> {
  return (await query<UserRow[]>(api, 'admin.listUsers')).data;
}

/** A browser of its own (no provider session, no cookie of ours), every answer's status noted. */
async function freshBrowser(browser: Browser): Promise<{ page: Page; signIn: SignInPage; statuses: number[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  const statuses: number[] = [];
  page.on('response', (response) => statuses.push(response.status()));
  const signIn = new SignInPage(page);
  await signIn.goto();
  return { page, signIn, statuses, close: () => context.close() };
}

test('the first sign-in through the provider creates the user with the role from its groups: the admin group sees /admin, which shows how each user signs in', async ({ browser }) => {
  const ada = await freshBrowser(browser);
  await ada.signIn.signInThroughProvider(providerName, 'ada@example.org');
  await expect(ada.page.getByTestId('signed-in-as')).toHaveText('ada@example.org');
  await expect(ada.page).toHaveURL(`${server.url}/`);
  await expect(ada.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toBeVisible();
  await ada.page.goto('/admin');
  const table = ada.page.getByRole('table', { name: 'Users' });
  const adaRow = table.getByRole('row').filter({ hasText: 'ada@example.org' });
  await expect(adaRow.getByRole('cell', { name: 'admin', exact: true })).toBeVisible();
  await expect(adaRow.getByRole('cell', { name: `single sign-on (${providerName})`, exact: true })).toBeVisible();
  await expect(table.getByRole('row').filter({ hasText: ADMIN.email }).getByRole('cell', { name: 'password', exact: true })).toBeVisible();
  expect(ada.statuses.filter((status) => status >= 500)).toEqual([]);
  await ada.close();

  const bo = await freshBrowser(browser);
  await bo.signIn.signInThroughProvider(providerName, 'bo@example.org');
  await expect(bo.page.getByTestId('signed-in-as')).toHaveText('bo@example.org');
  await expect(bo.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' })).toHaveCount(0);
  expect((await bo.page.goto('/admin'))?.status()).toBe(404);
  await bo.close();

  const signedIn = (await query<{ entries: { target: string; actor: string | null }[] }>(api, 'audit.list', { action: 'sign-in', result: 'success' })).data.entries.map((entry) => entry.target);
  expect(signedIn).toEqual(expect.arrayContaining(['ada@example.org (single sign-on)', 'bo@example.org (single sign-on)']));
  expect(await users()).toEqual([
    expect.objectContaining({ email: ADMIN.email, admin: true, signIn: { kind: 'password' } }),
    expect.objectContaining({ email: 'ada@example.org', admin: true, signIn: { kind: 'oidc', issuer: provider.issuer } }),
    expect.objectContaining({ email: 'bo@example.org', admin: false, signIn: { kind: 'oidc', issuer: provider.issuer } }),
  ]);
});

test('an email outside the allowed domains, and the email of an existing password account, are refused with a clear page and create nobody', async ({ browser }) => {
  const before = await users();
  const eve = await freshBrowser(browser);
  await eve.signIn.signInThroughProvider(providerName, 'eve@elsewhere.test');
  await expect(eve.signIn.error('Your email address is not in a domain allowed on this server. Ask the admin for access.')).toBeVisible();
  await expect(eve.page).toHaveURL(/\/signin\?error=oidc-domain-not-allowed$/);
  expect(eve.statuses.filter((status) => status >= 500)).toEqual([]);
  await eve.close();

  const lookalike = await freshBrowser(browser);
  await lookalike.signIn.signInThroughProvider(providerName, ADMIN.email);
  await expect(lookalike.signIn.error(/An account with your email address already exists here and signs in another way/)).toBeVisible();
  // Not signed in as the password admin: the page still offers to sign in.
  await expect(lookalike.signIn.singleSignOnButton(providerName)).toBeVisible();
  expect((await lookalike.page.goto('/admin'))?.url()).toMatch(/\/signin\?callbackUrl=%2Fadmin$/);
  await lookalike.close();
  expect(await users()).toEqual(before);

  // Both refusals are in the audit log, with the reason, as a password sign-in's failure is (DESIGN §17).
  const refused = (await query<{ entries: { target: string }[] }>(api, 'audit.list', { action: 'sign-in', result: 'failure' })).data.entries.map((entry) => entry.target);
  expect(refused).toEqual(expect.arrayContaining(['eve@elsewhere.test (single sign-on: domain-not-allowed)', `${ADMIN.email} (single sign-on: email-taken)`]));
});

// `refusal`: what the provider's token endpoint answered (null: it issued the tokens); `logged`: why the
// app's OpenID client refused, in the server's log.
const MISBEHAVIOURS: { mode: OidcMisbehaviour; what: string; refusal: RegExp | null; logged: RegExp }[] = [
  { mode: 'wrong-audience', what: 'an ID token for another client (aud)', refusal: null, logged: /aud mismatch, expected entity-memory-e2e, got: another-client/ },
  { mode: 'wrong-issuer', what: 'an ID token from another issuer (iss)', refusal: null, logged: /unexpected iss value, expected http:\/\/127\.0\.0\.1:\d+, got: http:\/\/127\.0\.0\.1:9\/another-issuer/ },
  { mode: 'code-replayed', what: 'an authorization code already redeemed', refusal: /^invalid_grant: authorization code already consumed$/, logged: /invalid_grant/ },
  { mode: 'code-expired', what: 'an expired authorization code', refusal: /^invalid_grant: authorization code (is expired|not found)$/, logged: /invalid_grant/ },
];

for (const { mode, what, refusal, logged } of MISBEHAVIOURS) {
  test(`${what} is refused with a clear page, no 500, and nobody is signed in or created`, async ({ browser }) => {
    const before = await users();
    const redeemedBefore = provider.redeemedCodes();
    const refusalsBefore = provider.tokenRefusals().length;
    const logBefore = server.output().length;
    provider.misbehave(mode);
    try {
      const cy = await freshBrowser(browser);
      await cy.signIn.signInThroughProvider(providerName, 'cy@example.org');
      await expect(cy.signIn.error(REFUSED_ANSWER)).toBeVisible();
      await expect(cy.page).toHaveURL(/\/signin\?(.*&)?error=OAuthCallback$/);
      expect(cy.statuses.filter((status) => status >= 500)).toEqual([]);
      // The token endpoint answered only where the ID token itself was the fault.
      expect(provider.redeemedCodes() - redeemedBefore).toBe(refusal ? 0 : 1);
      const refusals = provider.tokenRefusals().slice(refusalsBefore);
      if (refusal) expect(refusals).toEqual([expect.stringMatching(refusal)]);
      else expect(refusals).toEqual([]);
      expect(server.output().slice(logBefore)).toMatch(logged);
      expect((await cy.page.goto('/'))?.url()).toMatch(/\/signin/);
      await cy.close();
    } finally {
      provider.misbehave('none');
    }
    expect(await users()).toEqual(before);
  });
}

test('the same account signs in once the provider answers properly: the refusals were the misbehaviour', async ({ browser }) => {
  const cy = await freshBrowser(browser);
  await cy.signIn.signInThroughProvider(providerName, 'cy@example.org');
  await expect(cy.page.getByTestId('signed-in-as')).toHaveText('cy@example.org');
  await cy.close();
  expect((await users()).find((user) => user.email === 'cy@example.org')).toMatchObject({ admin: false, signIn: { kind: 'oidc', issuer: provider.issuer } });
});
