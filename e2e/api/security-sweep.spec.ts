import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import {
  BASE_URL,
  bearer,
  cookieHeaderOf,
  createToken,
  createUser,
  expect,
  MODEL_URL,
  mutate,
  newApiContext,
  openEvents,
  query,
  signIn,
  test,
} from '../fixtures';
import { PROCEDURES } from '../fixtures/procedure-matrix';
import { PAGES, ROUTES, SERVER_ACTIONS, type SurfaceIds } from '../fixtures/surface-matrix';
import { send } from './chat-helpers';
import { bare, callRoute, NEVER, SECRET, settledSnapshot, victimWithData } from './sweep-helpers';

/**
 * Issue 21 item 5 over real HTTP: another user's ids on every page, route handler and server
 * action answer like ids that never existed; revoked and expired tokens are refused on every way
 * in; cross-origin writes carrying the cookie are refused everywhere; a disabled user is cut off
 * at once from every open stream. Procedures: access-matrix and session-ownership specs.
 */

test('pages: another user\'s session or project is a 404 like one that never existed; signed out is the sign-in redirect', async ({ adminApi }) => {
  const victim = await victimWithData(adminApi);
  const intruder = await createUser(adminApi, { label: 'intruder' });
  const anonymous = await bare();
  const before = await settledSnapshot(victim.user.id);
  for (const row of PAGES) {
    const owner = await victim.user.api.get(row.url(victim.ids), { maxRedirects: 0 });
    if (row.access === 'admin') expect(owner.status(), row.file).toBe(404);
    else if (row.access === 'public') expect([200, 307], row.file).toContain(owner.status());
    else expect(owner.status(), row.file).toBe(200);
    if (row.owns === 'session') expect(await owner.text(), row.file).toContain(SECRET);

    const signedOut = await anonymous.get(row.url(victim.ids), { maxRedirects: 0 });
    if (row.access === 'public') expect(signedOut.status(), row.file).toBe(200);
    else {
      expect(signedOut.status(), row.file).toBe(307);
      expect(signedOut.headers().location, row.file).toMatch(/\/signin/);
    }

    const foreign = await intruder.api.get(row.url(victim.ids), { maxRedirects: 0 });
    if (row.access === 'share') {
      // A link is meant for others: under `login` any signed-in user opens it; one never made is 404.
      expect(foreign.status(), row.file).toBe(200);
      expect((await intruder.api.get(row.url(NEVER), { maxRedirects: 0 })).status(), row.file).toBe(404);
      continue;
    }
    const foreignText = await foreign.text();
    expect(foreignText, row.file).not.toContain(SECRET);
    expect(foreignText, row.file).not.toContain(victim.user.id);
    if (row.owns) {
      const never = await intruder.api.get(row.url(NEVER), { maxRedirects: 0 });
      expect(foreign.status(), row.file).toBe(404);
      expect(never.status(), row.file).toBe(404);
    } else {
      // What any signed-in non-admin gets: the page itself, the admin page's 404, /signin's redirect home.
      expect(foreign.status(), row.file).toBe(row.access === 'admin' ? 404 : row.access === 'public' ? 307 : 200);
    }
  }
  expect(await settledSnapshot(victim.user.id)).toBe(before);
  await anonymous.dispose();
});

test('route handlers: no credential is 401, another user\'s ids answer like ids that never existed, never their data', async ({ adminApi }) => {
  const victim = await victimWithData(adminApi);
  const intruder = await createUser(adminApi, { label: 'intruder' });
  const { token: intruderToken } = await createToken(intruder.api, 'sweep');
  const anonymous = await bare();
  const before = await settledSnapshot(victim.user.id);
  for (const row of ROUTES) {
    if (row.access === 'trpc') continue;
    const what = `${row.method} ${row.file}`;
    const none = await callRoute(anonymous, row, victim.ids);
    if (row.access === 'cluster') {
      // Off (404) without the cluster secret, else 401: a user's cookie or token is no credential.
      expect([401, 404], what).toContain(none.status());
      const noneText = await none.text();
      for (const [api, headers] of [[intruder.api, {}], [anonymous, bearer(intruderToken)]] as const) {
        const answer = await callRoute(api, row, victim.ids, headers);
        expect(answer.status(), what).toBe(none.status());
        expect(await answer.text(), what).toBe(noneText);
      }
      continue;
    }
    if (row.access === 'public') expect(none.status(), what).toBeLessThan(500);
    else expect(none.status(), what).toBe(401);
    if (!row.owns) continue;
    // By cookie where the cookie is a credential, and by token.
    const ways: Array<[APIRequestContext, Record<string, string>]> = [[anonymous, bearer(intruderToken)]];
    if (row.access === 'api') ways.push([intruder.api, {}]);
    for (const [api, headers] of ways) {
      const foreign = await callRoute(api, row, victim.ids, headers);
      const never = await callRoute(api, row, NEVER, headers);
      const foreignText = await foreign.text();
      const neverText = await never.text();
      expect(foreignText, what).not.toContain(SECRET);
      expect(foreign.status(), what).toBe(never.status());
      expect(foreignText.replaceAll(victim.ids.session, '<id>'), what).toBe(neverText.replaceAll(NEVER.session, '<id>'));
      if (row.file.startsWith('app/mcp')) {
        expect(foreign.status()).toBe(200);
        expect(foreignText, what).toMatch(/unknown session/);
      } else {
        expect(foreign.status(), what).toBe(404);
      }
    }
  }
  expect(await settledSnapshot(victim.user.id)).toBe(before);
  await anonymous.dispose();
});

test('server actions: another user\'s session is refused like one that never existed, and a cross-origin action is refused', async ({ adminApi }) => {
  const victim = await victimWithData(adminApi);
  const intruder = await createUser(adminApi, { label: 'intruder' });
  const manifest = JSON.parse(readFileSync(join(process.cwd(), '.next', 'server', 'server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { exportedName?: string; filename?: string }>;
  };
  for (const row of SERVER_ACTIONS) {
    for (const name of row.exports) {
      const actionId = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === name && entry.filename === row.file)?.[0];
      expect(actionId, `${row.file} ${name} in the build's server-reference manifest`).toBeTruthy();
      const post = (api: APIRequestContext, ids: SurfaceIds, headers: Record<string, string> = {}) =>
        api.post(row.page(ids), {
          headers: { 'next-action': actionId!, 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component', ...headers },
          data: JSON.stringify(row.args(ids)),
          maxRedirects: 0,
        });
      const own = await post(victim.user.api, victim.ids);
      expect(own.status(), name).toBe(200);
      expect(await own.text(), name).toContain(SECRET);
      const never = await post(intruder.api, NEVER);
      expect(never.status(), name).toBe(404);
      // A share link is the key: under `login` any signed-in holder opens it (share.spec covers revocation).
      if (row.owns === 'session') {
        const foreign = await post(intruder.api, victim.ids);
        expect(await foreign.text(), name).not.toContain(SECRET);
        expect(foreign.status(), name).toBe(404);
      }
      // Hostile arguments are the same 404, never a 500.
      for (const data of ['[{"sessionId":{"__proto__":1}}]', '[{"sessionId":"../x","extra":1}]', 'not json', '[]']) {
        const hostile = await victim.user.api.post(row.page(victim.ids), {
          headers: { 'next-action': actionId!, 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component' },
          data,
          maxRedirects: 0,
        });
        expect(hostile.status(), `${name} ${data}`).toBeLessThan(500);
        expect(hostile.status(), `${name} ${data}`).toBeGreaterThanOrEqual(400);
      }
      for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
        const crossOrigin = await post(victim.user.api, victim.ids, headers);
        const text = await crossOrigin.text();
        expect(text, name).not.toContain(SECRET);
        expect(crossOrigin.status(), `${name} ${JSON.stringify(headers)}`).toBe(403);
        expect(text).toMatch(/cross-origin/);
      }
    }
  }
});

test('route handlers refuse a cross-origin write carrying the cookie, and write nothing', async ({ adminApi }) => {
  const victim = await victimWithData(adminApi);
  const before = await settledSnapshot(victim.user.id);
  for (const row of ROUTES.filter((r) => r.write && r.access === 'api')) {
    const crossSite: Record<string, string>[] = [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of crossSite) {
      const refused = await callRoute(victim.user.api, row, victim.ids, headers);
      expect(refused.status(), `${row.file} ${JSON.stringify(headers)}`).toBe(403);
      expect(await refused.text()).toMatch(/cross-origin/);
    }
  }
  expect(await settledSnapshot(victim.user.id)).toBe(before);
  // tRPC alike: a mutation of every kind the cookie can call.
  const refused = await mutate(victim.user.api, 'session.delete', { id: victim.ids.session }, { origin: 'https://evil.example' });
  expect(refused.status).toBe(403);
  expect(await settledSnapshot(victim.user.id)).toBe(before);
  // The same writes from our own origin work (the refusal was the origin, not the request).
  const archive = ROUTES.find((r) => r.file === 'app/api/sessions/archive/route.ts')!;
  expect((await callRoute(victim.user.api, archive, victim.ids)).status()).toBe(200);
});

test('revoked and expired tokens are refused on every way in: tRPC, route handlers, /api/events, /mcp, /proxy', async ({ user }) => {
  const revoked = await createToken(user.api, 'to revoke');
  const expiring = await mutate<{ token: string }>(user.api, 'token.create', { name: 'short', expiresAt: Date.now() + 2_000 });
  const live = await createToken(user.api, 'live');
  const anonymous = await bare();
  const session = await mutate<{ id: string }>(user.api, 'session.create', { title: 'tokens' });
  const ids: SurfaceIds = { ...NEVER, session: session.data.id };
  const tokenRows = ROUTES.filter((row) => row.access !== 'public' && row.access !== 'cluster');
  const statuses = async (token: string) => {
    const out: Record<string, number> = {};
    for (const row of tokenRows) {
      out[`${row.method} ${row.url(ids)}`] = (await callRoute(anonymous, row, ids, { ...bearer(token), ...(row.file.includes('proxy') ? { 'x-entity-memory-token': token } : {}) })).status();
    }
    out['tRPC mutation'] = (await mutate(anonymous, 'session.create', { title: 'x' }, bearer(token))).status;
    return out;
  };
  // Every way in accepts a live token (so the refusals below are the token's doing).
  for (const [way, status] of Object.entries(await statuses(live.token))) expect([401, 403], way).not.toContain(status);
  expect((await mutate(user.api, 'token.revoke', { id: revoked.id })).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  for (const token of [revoked.token, expiring.data.token]) {
    for (const [way, status] of Object.entries(await statuses(token))) expect(status, way).toBe(401);
  }
  await anonymous.dispose();
});

test('cookie flags: every cookie sign-in sets is HttpOnly, SameSite=Lax, Path=/, and Secure only over https', async () => {
  const api = await bare();
  const csrf = await api.get('/api/auth/csrf');
  const cookies = csrf.headersArray().filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signIn = await api.post('/api/auth/callback/credentials', { form: { email: 'admin@e2e.test', password: 'admin-password-e2e', csrfToken }, maxRedirects: 0 });
  cookies.push(...signIn.headersArray().filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value));
  expect(cookies.some((c) => c.startsWith('next-auth.session-token='))).toBe(true);
  for (const cookie of cookies) {
    const attributes = cookie.split(';').slice(1).map((a) => a.trim().toLowerCase());
    expect(attributes, cookie).toContain('httponly');
    expect(attributes, cookie).toContain('path=/');
    expect(attributes.some((a) => a === 'samesite=lax' || a === 'samesite=strict'), cookie).toBe(true);
    expect(attributes, cookie).not.toContain('secure');
  }
  await api.dispose();
});

test('the stream cap counts cookie and token streams together, says why in its 429, and a refused stream takes no slot', async ({ user }) => {
  const cookie = await cookieHeaderOf(user.api);
  const { token } = await createToken(user.api, 'streams');
  const streams = [];
  try {
    for (let i = 0; i < 20; i++) {
      const stream = await openEvents(i % 2 === 0 ? { cookie } : bearer(token));
      expect(stream.status).toBe(200);
      streams.push(stream);
    }
    for (const headers of [{ cookie }, bearer(token)]) {
      const response = await fetch(`${BASE_URL}/api/events`, { headers: { accept: 'text/event-stream', ...headers } });
      expect(response.status).toBe(429);
      expect(await response.text()).toMatch(/at most 20\b.*close another tab/);
    }
    streams.pop()!.close();
    await expect.poll(async () => {
      const retry = await openEvents(bearer(token));
      const status = retry.status;
      if (status === 200) streams.push(retry);
      else retry.close();
      return status;
    }).toBe(200);
  } finally {
    for (const stream of streams) stream.close();
  }
});

test('a disabled user is cut off at once: event streams, a running chat turn, a proxied stream, /mcp and every request', async ({ adminApi }) => {
  const user = await createUser(adminApi, { label: 'disabled' });
  const { token } = await createToken(user.api, 'agent');
  const cookie = await cookieHeaderOf(user.api);
  const byCookie = await openEvents({ cookie });
  const byToken = await openEvents(bearer(token));
  await byCookie.waitForComment('connected');
  await byToken.waitForComment('connected');
  const ended = { cookie: false, token: false };
  void byCookie.ended.then(() => (ended.cookie = true));
  void byToken.ended.then(() => (ended.token = true));

  // A chat turn that streams for ~20 s.
  const { sessionId } = await send(user.api, { content: 'slow [[delay:50]] [[words:400]]' });
  await byToken.waitFor((event) => event.type === 'chat_delta', 10_000);

  // A proxied streamed exchange through the user's upstream at the test model server (~20 s).
  expect((await mutate(user.api, 'proxy.setUpstream', { name: 'sweep', kind: 'openai', baseUrl: MODEL_URL, key: 'sk-test' })).status).toBe(200);
  const proxyAbort = new AbortController();
  const proxied = await fetch(`${BASE_URL}/proxy/sweep/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: 'e2e-model', stream: true, messages: [{ role: 'user', content: 'proxied [[delay:50]] [[words:400]]' }] }),
    signal: proxyAbort.signal,
  });
  expect(proxied.status).toBe(200);
  const reader = proxied.body!.getReader();
  await reader.read();
  let proxyText = '';
  const proxyDone = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'ended';
        proxyText += new TextDecoder().decode(value);
      }
    } catch {
      return 'cut';
    }
  })();

  const disabledAt = Date.now();
  expect((await mutate(adminApi, 'admin.setDisabled', { userId: user.id, disabled: true })).status).toBe(200);
  await Promise.race([Promise.all([byCookie.ended, byToken.ended, proxyDone]), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  expect(ended).toEqual({ cookie: true, token: true });
  expect(await Promise.race([proxyDone, new Promise((resolve) => setTimeout(() => resolve('still open'), 100))])).not.toBe('still open');
  expect(proxyText).not.toContain('word400');
  expect(Date.now() - disabledAt).toBeLessThan(5_000);

  // Every request after it: cookie and token, tRPC, routes, /mcp, /proxy, a new stream.
  expect((await query(user.api, 'session.list', {})).status).toBe(401);
  const anonymous = await bare();
  expect((await query(anonymous, 'session.list', {}, bearer(token))).status).toBe(401);
  expect((await anonymous.post('/mcp', { headers: { ...bearer(token), accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, data: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })).status()).toBe(401);
  expect((await anonymous.get('/proxy/sweep/v1/models', { headers: bearer(token) })).status()).toBe(401);
  expect((await openEvents(bearer(token))).status).toBe(401);
  expect((await user.api.get(`/api/export/${sessionId}?format=json`)).status()).toBe(401);

  // The chat turn stopped at once: re-enabled, the session shows it cancelled, cut short.
  expect((await mutate(adminApi, 'admin.setDisabled', { userId: user.id, disabled: false })).status).toBe(200);
  const again = await newApiContext();
  await signIn(again, user.email, user.password);
  const detail = await query<{ status: string }>(again, 'session.get', { id: sessionId });
  expect(detail.data.status).toBe('cancelled');
  const branch = await query<{ role: string; content: string }[]>(again, 'message.branch', { sessionId });
  expect(branch.data.at(-1)!.content).not.toContain('word400');
  proxyAbort.abort();
  byCookie.close();
  byToken.close();
  await anonymous.dispose();
  await again.dispose();
});

test('project procedures: another user\'s project id answers exactly like one that never existed', async ({ adminApi }) => {
  const victim = await victimWithData(adminApi);
  const intruder = await createUser(adminApi, { label: 'intruder' });
  const before = await settledSnapshot(victim.user.id);
  const rows = PROCEDURES.filter((row) => row.path.startsWith('project.') && typeof (row.valid as { id?: unknown } | undefined)?.id === 'string');
  expect(rows.length).toBeGreaterThanOrEqual(5);
  for (const row of rows) {
    const input = (id: string) => ({ ...(row.valid as object), id, ...(row.path === 'project.commitDiff' ? { sha: victim.ids.sha } : {}) });
    const call = (id: string) => (row.type === 'query' ? query(intruder.api, row.path, input(id)) : mutate(intruder.api, row.path, input(id)));
    const foreign = await call(victim.ids.project);
    const never = await call(NEVER.project);
    expect(JSON.stringify(foreign.body), row.path).not.toContain(SECRET);
    // relocate checks its new path first (409: the workspace is the default project), for any id alike.
    expect(foreign.status, row.path).toBe(row.path === 'project.relocate' ? 409 : 404);
    expect(JSON.stringify(foreign.body).replaceAll(victim.ids.project, '<id>'), row.path).toBe(JSON.stringify(never.body).replaceAll(NEVER.project, '<id>'));
  }
  expect(await settledSnapshot(victim.user.id)).toBe(before);
});
