import { expect, request, test, type APIRequestContext, type Browser } from '@playwright/test';
import { encode } from 'next-auth/jwt';
import { bearer, sessionCookieOf, signIn } from '../fixtures/auth';
import { expectedMisdirected, misdirectedHeadersOf } from '../fixtures/misdirected';
import { mutate, query } from '../fixtures/trpc';
import { Sidebar } from '../pages/sidebar';
import { CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD, startTestCluster, type TestCluster } from './harness';

// DESIGN §11 on one machine: Postgres, HAProxy (deploy/haproxy/haproxy.cfg) and two instances in
// cluster mode, every request through HAProxy as users and agents send them.
test.describe.configure({ mode: 'serial' });

let cluster: TestCluster;
const INSTANCE = 'x-entity-memory-instance';

interface Person {
  id: string;
  email: string;
  password: string;
  api: APIRequestContext;
  token: string;
}

function apiContext(): Promise<APIRequestContext> {
  // Generous: the machine is shared, and fifty sign-ups hash fifty passwords at once.
  return request.newContext({ baseURL: cluster.url, extraHTTPHeaders: { origin: cluster.url }, timeout: 90_000 });
}

async function signedIn(email: string, password: string): Promise<APIRequestContext> {
  const api = await apiContext();
  const response = await signIn(api, email, password);
  expect(sessionCookieOf(response), `sign-in of ${email}`).toBeTruthy();
  return api;
}

async function ownerOf(userId: string): Promise<string> {
  const { rows } = await pgQuery<{ shard: string }>('SELECT shard FROM user_shard WHERE user_id = $1', [userId]);
  return rows[0]!.shard;
}

async function epochOf(userId: string): Promise<number> {
  const { rows } = await pgQuery<{ epoch: string }>('SELECT epoch FROM user_shard WHERE user_id = $1', [userId]);
  return Number(rows[0]!.epoch);
}

async function pgQuery<T>(sql: string, params: unknown[] = []): Promise<{ rows: T[] }> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: cluster.postgres.url });
  await client.connect();
  try {
    return (await client.query(sql, params)) as unknown as { rows: T[] };
  } finally {
    await client.end();
  }
}

let admin: APIRequestContext;
const people: Person[] = [];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  cluster = await startTestCluster({ instances: 2 });
  admin = await signedIn(CLUSTER_ADMIN_EMAIL, CLUSTER_ADMIN_PASSWORD);
  for (const label of ['alice', 'bob']) {
    const email = `${label}@cluster.test`;
    const password = `${label}-password-long`;
    const created = await mutate<{ id: string }>(admin, 'admin.createUser', { email, password });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const api = await signedIn(email, password);
    const token = await mutate<{ token: string }>(api, 'token.create', { name: 'agent' });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    people.push({ id: created.data.id, email, password, api, token: token.data.token });
  }
});

test.afterAll(async () => {
  await admin?.dispose();
  for (const person of people) await person.api.dispose();
  await cluster?.stop();
});

test('new users are spread over the instances, and each user is served by its owner only', async () => {
  const [alice, bob] = people as [Person, Person];
  const owners = [await ownerOf(alice.id), await ownerOf(bob.id)];
  expect(new Set(owners).size).toBe(2);
  for (const person of people) {
    const owner = await ownerOf(person.id);
    const viaToken = await query(await apiContext(), 'session.list', {}, bearer(person.token));
    expect(viaToken.status).toBe(200);
    expect(viaToken.response.headers()[INSTANCE]).toBe(owner);
    const viaCookie = await query(person.api, 'session.list', {});
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.response.headers()[INSTANCE]).toBe(owner);
    // The data directory exists on the owner only.
    const other = [...cluster.instances.values()].find((instance) => instance.id !== owner)!;
    const { existsSync } = await import('node:fs');
    expect(existsSync(`${cluster.instances.get(owner)!.dataDir}/users/${person.id}`)).toBe(true);
    expect(existsSync(`${other.dataDir}/users/${person.id}`)).toBe(false);
  }
});

async function signInThroughPage(browser: Browser, person: Person) {
  const context = await browser.newContext({ baseURL: cluster.url });
  const page = await context.newPage();
  await page.goto('/');
  await expect(page).toHaveURL(/\/signin/);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText(person.email);
  return { context, page };
}

test('sign-in through HAProxy and the live sidebar, for users on different instances', async ({ browser }) => {
  const signedInPages = [];
  for (const person of people) signedInPages.push({ person, ...(await signInThroughPage(browser, person)) });
  for (const { person, page } of signedInPages) {
    const title = `Live on ${await ownerOf(person.id)} for ${person.email}`;
    // An agent writes with its token; the open page hears it on its event stream, through HAProxy.
    const created = await mutate(await apiContext(), 'session.create', { title }, bearer(person.token));
    expect(created.status).toBe(200);
    await expect(new Sidebar(page).row(title)).toBeVisible({ timeout: 5_000 });
  }
  // Each sees only their own.
  const [first, second] = signedInPages as [(typeof signedInPages)[0], (typeof signedInPages)[0]];
  await expect(new Sidebar(first.page).nav.getByText(second.person.email)).toHaveCount(0);
  for (const { page, context } of signedInPages) {
    await page.screenshot({ path: `/tmp/cluster-core-shots/sidebar-${(await page.getByTestId('signed-in-as').textContent())?.split('@')[0]}.png` });
    await context.close();
  }
});

test('a forged user id in a token, a cookie or the route cookie is refused', async () => {
  const [alice, bob] = people as [Person, Person];
  const bobsTitle = `Live on ${await ownerOf(bob.id)} for ${bob.email}`;
  // Alice's secret with Bob's id: HAProxy routes it to Bob's instance, which refuses it.
  const forgedToken = alice.token.replace(alice.id, bob.id);
  const byToken = await query(await apiContext(), 'session.list', {}, bearer(forgedToken));
  expect(byToken.status).toBe(401);
  // A sign-in cookie naming Bob, made without the cluster's secret.
  const forgedJwt = await encode({ token: { uid: bob.id, sv: 1 }, secret: 'not-the-cluster-secret-'.repeat(3) });
  const byCookie = await (await apiContext()).get('/api/trpc/session.list', { headers: { cookie: `next-auth.session-token=${forgedJwt}; em_route=${bob.id}` } });
  expect(byCookie.status()).toBe(401);
  // Alice's genuine cookie with Bob's id as the route: Bob's instance sends her to her own.
  const aliceCookies = (await alice.api.storageState()).cookies.filter((c) => c.name !== 'em_route').map((c) => `${c.name}=${c.value}`);
  const misrouted = await (await apiContext()).get('/api/trpc/session.list', { headers: { cookie: [...aliceCookies, `em_route=${bob.id}`].join('; ') } });
  expect(misrouted.status()).toBe(421);
  const alicesOwner = await ownerOf(alice.id);
  const misdirected = expectedMisdirected({ instance: alicesOwner, url: cluster.instances.get(alicesOwner)!.url, epoch: await epochOf(alice.id) });
  expect(misdirectedHeadersOf(misrouted.headers())).toEqual(misdirected.headers);
  expect(await misrouted.json()).toEqual(misdirected.body);
  expect(await misrouted.text()).not.toContain(bobsTitle);
});

test('50 new users signing up at once, on any instance, are placed evenly', async () => {
  expect((await mutate(admin, 'admin.setSignup', { open: true })).status).toBe(200);
  const anonymous = await apiContext();
  const answers = await Promise.all(
    Array.from({ length: 50 }, (_, i) => mutate<{ id: string }>(anonymous, 'auth.signup', { email: `new${i}@cluster.test`, password: `new-user-password-${i}` })),
  );
  for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  // Anonymous requests went to both instances: the placements raced from two processes.
  expect(new Set(answers.map((answer) => answer.response.headers()[INSTANCE])).size).toBe(2);
  const { rows } = await pgQuery<{ shard: string; n: string }>('SELECT shard, count(*) AS n FROM user_shard GROUP BY shard ORDER BY shard');
  const counts = rows.map((row) => Number(row.n));
  expect(counts.reduce((a, b) => a + b, 0)).toBe(53);
  expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
  // What an operator sees: `cluster status` counts the same users per instance.
  const { execFileSync } = await import('node:child_process');
  const status = JSON.parse(execFileSync(process.execPath, ['cli/bin.mjs', 'cluster', 'status', '--json'], { env: { ...process.env, OPENPROGRAM_CLUSTER_DB: cluster.postgres.url }, encoding: 'utf8' })) as {
    instances: Array<{ id: string; users: number; healthy: boolean }>;
    moves: unknown[];
  };
  expect(status.instances.map((row) => [row.id, row.users, row.healthy])).toEqual(rows.map((row) => [row.shard, Number(row.n), true]));
  expect(status.moves).toEqual([]);
  await anonymous.dispose();
});

test('a stale HAProxy map: the wrong instance answers 421 naming the owner, then the sync puts the route right', async () => {
  const [alice] = people as [Person];
  const owner = await ownerOf(alice.id);
  const wrong = [...cluster.instances.values()].find((instance) => instance.id !== owner)!;
  expect((await cluster.haproxy(`set map ${cluster.mapPath} ${alice.id} 127.0.0.1:${wrong.port}`)).trim()).toBe('');
  const misdirected = await query(await apiContext(), 'session.list', {}, bearer(alice.token));
  expect(misdirected.status).toBe(421);
  expect(misdirected.response.headers()[INSTANCE]).toBe(wrong.id);
  const expected = expectedMisdirected({ instance: owner, url: cluster.instances.get(owner)!.url, epoch: await epochOf(alice.id) });
  expect(misdirectedHeadersOf(misdirected.response.headers())).toEqual(expected.headers);
  expect(misdirected.body).toEqual(expected.body);
  await expect
    .poll(async () => (await query(await apiContext(), 'session.list', {}, bearer(alice.token))).response.headers()[INSTANCE], { timeout: 15_000 })
    .toBe(owner);
});

test('an instance down: only its users get 503, the others and sign-in never notice', async () => {
  const [alice, bob] = people as [Person, Person];
  const bobsOwner = await ownerOf(bob.id);
  await cluster.kill(bobsOwner);
  // HAProxy's own 503: the owner's address refuses connections.
  expect((await (await apiContext()).get('/api/trpc/session.list', { headers: bearer(bob.token) })).status()).toBe(503);
  for (let i = 0; i < 4; i += 1) {
    expect((await query(await apiContext(), 'session.list', {}, bearer(alice.token))).status).toBe(200);
    expect((await (await apiContext()).get('/signin')).status()).toBe(200);
  }
  await cluster.restart(bobsOwner);
  await expect.poll(async () => (await query(await apiContext(), 'session.list', {}, bearer(bob.token))).status, { timeout: 20_000 }).toBe(200);
});
