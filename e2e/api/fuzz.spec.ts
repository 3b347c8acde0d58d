import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import fc from 'fast-check';
import { BASE_URL, cookieHeaderOf, createSession, createToken, e2eDataDir, expect, mutate, test } from '../fixtures';
import { PAGES, ROUTES, type SurfaceIds } from '../fixtures/surface-matrix';
import { PROCEDURES, SESSION, withSession, type ProcedureRow } from '../fixtures/procedure-matrix';
import type { FuzzProperty, FuzzReportLine } from '../fixtures/fuzz-properties';

/**
 * Hostile input (issue 21.4), property-based: every tRPC procedure and the HTTP routes get
 * malformed JSON, wrong types, huge strings, deep nesting, path-like ids, odd Unicode and lone
 * surrogates, NUL, __proto__/constructor keys, forged cursors and huge limits. Never a 5xx, a 4xx
 * always says why, the server keeps answering, nothing lands outside the data directory.
 * FUZZ_CASES (default 1500) cases per property, FUZZ_SEED fixed, so a failure replays. Every case
 * runs (problems are collected, not shrunk), so the bench counts every 5xx.
 */
const CASES = Number(process.env['FUZZ_CASES'] ?? 1500);
const SEED = Number(process.env['FUZZ_SEED'] ?? 21_04);
/** Names the path-like inputs try to create; none may appear outside the data directory. */
const ESCAPE_MARKER = 'fuzz-escape-marker';

const pathLike = fc.constantFrom(
  `../${ESCAPE_MARKER}`,
  `../../${ESCAPE_MARKER}`,
  `../../../../../../tmp/${ESCAPE_MARKER}`,
  `/tmp/${ESCAPE_MARKER}`,
  `..\\..\\${ESCAPE_MARKER}`,
  `%2e%2e%2f${ESCAPE_MARKER}`,
  `projects/../../${ESCAPE_MARKER}`,
  '.git',
  '.git/config',
  'index.json',
  '.',
  '..',
  '~',
  `file:///tmp/${ESCAPE_MARKER}`,
);
const oddUnicode = fc.constantFrom('\ud800', '\udfff', 'a\ud800b', '\u0000', 'a\u0000b', '\u202e\u2066', '\ufeff', '\uffff', 'e\u0301\u0301\u0301', '🧨'.repeat(50), '\u0085\u2028\u2029');
const forgedCursor = fc.oneof(
  fc.constantFrom('', 'null', '{}', '-1', 'eyJ9', '%%%'),
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64')),
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')),
);
const hugeString = fc.integer({ min: 10_000, max: 400_000 }).chain((n) => fc.constantFrom('x', '\u0000', 'é', '\ud83d\ude00', '../').map((unit) => unit.repeat(Math.ceil(n / unit.length))));
const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: pathLike },
  { weight: 2, arbitrary: oddUnicode },
  { weight: 1, arbitrary: forgedCursor },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', SESSION, 'toString', 'hasOwnProperty') },
);
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, -1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 2 ** 53, 1e21, 10_000_000),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const hostileKey = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'limit', 'cursor', 'id', 'sessionId', ''), hostileString.filter((s) => s.length < 100));

const { hostileValue } = fc.letrec((tie) => ({
  hostileValue: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('hostileValue'), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie('hostileValue'), { maxKeys: 4 }),
  ),
}));

/** Nesting far past any sane depth, as raw JSON text (the structure itself would blow the stack here). */
const deepJson = fc.tuple(fc.integer({ min: 100, max: 100_000 }), fc.constantFrom('[', '{"a":')).map(([depth, open]) => {
  const close = open === '[' ? ']' : '}';
  return `${open.repeat(depth)}1${close.repeat(depth)}`;
});
const malformedJson = fc.oneof(
  fc.constantFrom('{', '{"', '{"a":', '[1,', 'nul', 'undefined', "{'a':1}", '{"a":1,}', '\u0000', '', ' ', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}', '"\\ud800"', '1e999999'),
  fc.string({ unit: 'binary', maxLength: 200 }),
  deepJson,
);

/** An input for a row: the valid one with one field made hostile, extra keys, or something else entirely. */
function inputFor(row: ProcedureRow): fc.Arbitrary<{ json?: unknown; raw?: string }> {
  const valid = (row.valid ?? {}) as Record<string, unknown>;
  const keys = typeof valid === 'object' && valid !== null ? Object.keys(valid) : [];
  return fc.oneof(
    { weight: 4, arbitrary: keys.length === 0 ? hostileValue.map((json) => ({ json })) : fc.tuple(fc.constantFrom(...keys), hostileValue).map(([key, value]) => ({ json: { ...valid, [key]: value } })) },
    { weight: 2, arbitrary: fc.tuple(hostileKey, hostileValue).map(([key, value]) => ({ json: JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}}`) as unknown })) },
    { weight: 1, arbitrary: fc.tuple(hostileKey, hostileValue).map(([key, value]) => ({ raw: `{${Object.entries(valid).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`).join('')}${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}}` })) },
    { weight: 2, arbitrary: hostileValue.map((json) => ({ json })) },
    { weight: 2, arbitrary: malformedJson.map((raw) => ({ raw })) },
  );
}

/** Percent-encoding by UTF-8 bytes: encodeURIComponent throws on a lone surrogate. */
function encodeQuery(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

interface Answer {
  status: number;
  text: string;
}

const NODE_MAX_HEADER_BYTES = 16_384;

async function send(path: string, init: RequestInit & { readHead?: boolean } = {}): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    const response = await fetch(`${BASE_URL}${path}`, { ...init, signal: controller.signal, redirect: 'manual' });
    if (init.readHead && response.status === 200) {
      // An event stream never ends: its head is the answer. A refusal is read whole (aborting
      // first had left every refusal's body unread, so a 404 looked like one without a message).
      controller.abort();
      return { status: response.status, text: 'stream' };
    }
    return { status: response.status, text: await response.text() };
  } catch (error) {
    // Node refuses a request head over its 16 KB limit with a 431 and closes the socket, often
    // before the client has read the answer; the health checks tell that from a crash.
    if (path.length > NODE_MAX_HEADER_BYTES && !controller.signal.aborted) return { status: 431, text: '' };
    // A timeout is a hang.
    throw new Error(`${init.method ?? 'GET'} ${path.slice(0, 200)}: no answer (${(error as Error).message})`);
  } finally {
    clearTimeout(timer);
  }
}

/** Node's own refusals of an oversized request carry no body; every other 4xx says why. */
const BODILESS_STATUSES = new Set([413, 414, 431]);

/** Inside the test's 30 minutes: an interrupted property still reports before Playwright ends the test. */
const PROPERTY_TIME_LIMIT_MS = 25 * 60_000;

/**
 * FUZZ_REPORT: a file that gets JSON lines for npm run bench: `{property, started}` before a
 * property runs, then `{property, cases, expected, fiveXX, failed, message}` once it is over,
 * whatever happened. A property that hangs past the test's timeout leaves only its start line;
 * one that failed says why with its counterexample; the bench fails loudly on either.
 */
function report(line: FuzzReportLine): void {
  const file = process.env['FUZZ_REPORT'];
  if (file) appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/**
 * Runs every case of a property (no shrinking: each case is sent once, and one that throws, a
 * hang included, ends the run with that case as the counterexample, which FUZZ_SEED replays)
 * and reports it before anything can throw.
 */
async function runProperty<T>(name: FuzzProperty, property: fc.IAsyncProperty<T>, state: { cases: number; problems: string[] }): Promise<void> {
  report({ property: name, started: true });
  let details: fc.RunDetails<unknown> | null = null;
  let thrown: unknown = null;
  try {
    details = await fc.check(property, { seed: SEED, numRuns: CASES, endOnFailure: true, plugins: [fc.interruptAfterTimeLimit(PROPERTY_TIME_LIMIT_MS, { failOnInterrupt: true })] });
  } catch (error) {
    thrown = error;
  }
  const failed = thrown !== null || details === null || details.failed;
  const message = thrown !== null ? String(thrown) : details && details.failed ? (fc.defaultReportMessage(details) ?? 'failed') : null;
  report({ property: name, cases: state.cases, expected: CASES, fiveXX: state.problems.filter((p) => / → 5\d\d /.test(p)).length, failed, message });
  if (failed) throw new Error(`property ${name}: ${message}`);
}

/** A JS stack frame (`at f (file.js:1:2)`, `node:internal/…`): a refusal says why, never where in the code. */
const STACK = /\n\s+at [^\n]*:\d+:\d+|node:internal\//;

function judge(what: string, answer: Answer, problems: string[]): void {
  if (answer.status >= 500) problems.push(`${what} → ${answer.status} ${answer.text.slice(0, 300)}`);
  else if (answer.status >= 400 && STACK.test(answer.text)) problems.push(`${what} → ${answer.status} with a stack: ${answer.text.slice(0, 300)}`);
  else if (answer.status >= 400 && !BODILESS_STATUSES.has(answer.status) && answer.text.trim() === '') problems.push(`${what} → ${answer.status} without a message`);
}

async function healthy(): Promise<boolean> {
  const answer = await fetch(`${BASE_URL}/api/health`).catch(() => null);
  return answer?.status === 200;
}

/** Every entry named after the marker in the directories a path-like id could reach, outside the data directory. */
function escapes(): string[] {
  const dataDir = resolve(e2eDataDir());
  const found: string[] = [];
  const places = new Set<string>(['/tmp', process.cwd(), '/']);
  for (let dir = dataDir; dir !== dirname(dir); dir = dirname(dir)) places.add(dirname(dir));
  for (const place of places) {
    if (!existsSync(place)) continue;
    for (const name of readdirSync(place)) if (name.includes(ESCAPE_MARKER)) found.push(join(place, name));
  }
  return found;
}

test.describe.configure({ timeout: 30 * 60_000 });

test('every tRPC procedure survives hostile input: no 5xx, a 4xx with a message, the server up', async ({ user, adminApi }) => {
  const session = await createSession(user.api, { title: 'fuzz target' });
  const userCookie = await cookieHeaderOf(user.api);
  const adminCookie = await cookieHeaderOf(adminApi);
  // setSignup would open sign-up for the rest of the run; as the user it is refused like any admin call.
  const asAdmin = (row: ProcedureRow) => row.access === 'admin' && row.path !== 'admin.setSignup';
  const state = { cases: 0, problems: [] as string[] };
  const { problems } = state;
  await runProperty(
    'procedures',
    fc.asyncProperty(
      fc.constantFrom(...PROCEDURES).chain((row) => inputFor(row).map((input) => ({ row, input }))),
      async ({ row, input }) => {
        const cases = ++state.cases;
        const cookie = asAdmin(row) ? adminCookie : userCookie;
        const body = input.raw ?? JSON.stringify(withSession(input.json, session.id) ?? null);
        const answer =
          row.type === 'query'
            ? await send(`/api/trpc/${row.path}?input=${encodeQuery(body)}`, { headers: { cookie } })
            : await send(`/api/trpc/${row.path}`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body });
        judge(`${row.path} ${body.slice(0, 120)}`, answer, problems);
        if (cases % 100 === 0 && !(await healthy())) problems.push(`server down after case ${cases}`);
      },
    ),
    state,
  );
  expect(problems).toEqual([]);
  expect(await healthy()).toBe(true);
  expect(escapes()).toEqual([]);
});

test('the HTTP routes survive hostile input: events, attachments, import, proxy, mcp, archive', async ({ user }) => {
  const session = await createSession(user.api, { title: 'fuzz routes' });
  const { token } = await createToken(user.api, 'fuzz');
  const cookie = await cookieHeaderOf(user.api);
  const auth = { authorization: `Bearer ${token}` };
  const text = hostileString.map((s) => (s === SESSION ? session.id : s));

  const routeCase = fc.oneof(
    fc.tuple(text, text).map(([since, key]) => ({ what: 'events', path: `/api/events?since=${encodeQuery(since)}&${encodeQuery(key)}=1`, init: { headers: { cookie, 'last-event-id': encodeQuery(since).slice(0, 2000) }, readHead: true } })),
    fc.tuple(text, text, fc.oneof(text, malformedJson)).map(([sessionId, name, content]) => {
      const form = new FormData();
      form.set('sessionId', sessionId);
      form.set('file', new Blob([content]), name || 'x');
      return { what: 'attachments', path: '/api/attachments', init: { method: 'POST', headers: { cookie }, body: form } };
    }),
    fc.tuple(text, fc.oneof(malformedJson, text)).map(([boundary, body]) => ({
      what: 'attachments raw',
      path: '/api/attachments',
      init: { method: 'POST', headers: { cookie, 'content-type': `multipart/form-data; boundary=${encodeQuery(boundary).slice(0, 200)}` }, body },
    })),
    fc.tuple(text, fc.oneof(malformedJson, text)).map(([format, body]) => ({ what: 'import', path: `/api/import?format=${encodeQuery(format)}&projectId=${encodeQuery(format)}`, init: { method: 'POST', headers: auth, body } })),
    fc.tuple(text, fc.oneof(malformedJson, hostileValue.map((v) => JSON.stringify(v) ?? 'null'))).map(([segment, body]) => ({
      what: 'proxy',
      path: `/proxy/${encodeQuery(segment)}/v1/messages`,
      init: { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body },
    })),
    fc.tuple(fc.constantFrom('anthropic', 'openai'), fc.oneof(malformedJson, hostileValue.map((v) => JSON.stringify(v) ?? 'null'))).map(([provider, body]) => ({
      what: 'proxy provider',
      path: `/proxy/${provider}/v1/${provider === 'openai' ? 'chat/completions' : 'messages'}`,
      init: { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body },
    })),
    fc.oneof(malformedJson, fc.tuple(fc.oneof(text, hostileValue), hostileValue).map(([method, params]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }))).map((body) => ({
      what: 'mcp',
      path: '/mcp',
      init: { method: 'POST', headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body },
    })),
    fc.oneof(malformedJson, hostileValue.map((v) => JSON.stringify({ session_id: v })), text.map((s) => JSON.stringify({ session_id: s }))).map((body) => ({
      what: 'archive',
      path: '/api/sessions/archive',
      init: { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body },
    })),
  );

  const state = { cases: 0, problems: [] as string[] };
  const { problems } = state;
  await runProperty(
    'routes',
    fc.asyncProperty(routeCase, async ({ what, path, init }) => {
      const cases = ++state.cases;
      const answer = await send(path, init as RequestInit & { readHead?: boolean });
      judge(`${what} ${path.slice(0, 120)}`, answer, problems);
      if (cases % 100 === 0 && !(await healthy())) problems.push(`server down after case ${cases}`);
    }),
    state,
  );
  expect(problems).toEqual([]);
  expect(await healthy()).toBe(true);
  expect(escapes()).toEqual([]);
});

/**
 * Raw percent-escapes no decoder accepts, sent as they are (encodeQuery only ever makes valid
 * ones): a lone `%`, a truncated sequence, non-hex, overlong UTF-8 (`/`, `..`), a lone surrogate,
 * past U+10FFFF, a stray continuation byte, %u escapes.
 */
const badEscape = fc.constantFrom('%', '%%', '%2', '%E0%A4%A', '%ZZ', '%C0%AF', '%C0%AE%C0%AE%C0%AF', '%E0%80%AF', '%ED%A0%80', '%ED%BF%BF', '%F4%90%80%80', '%FF', '%80', '%u0041', '%00', '%2e%2e%2f', '%252e');
const segment = fc.oneof(
  { weight: 3, arbitrary: badEscape },
  { weight: 2, arbitrary: fc.tuple(fc.string({ maxLength: 8 }).map(encodeQuery), badEscape, fc.string({ maxLength: 8 }).map(encodeQuery)).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: hostileString.filter((s) => s.length < 2000).map(encodeQuery) },
);
const noSplit = fc.constant(-1);

/** Files under the user's folders, the SQLite side files left out (they come and go with reads). */
function writtenFiles(userId: string): string {
  const files: string[] = [];
  for (const root of ['users', 'workspaces']) {
    const dir = join(e2eDataDir(), root, userId);
    if (existsSync(dir)) for (const path of readdirSync(dir, { recursive: true }) as string[]) if (!/-(wal|shm|journal)$/.test(path)) files.push(`${root}/${path}`);
  }
  return files.sort().join('\n');
}

test('every route prefix of the surface matrix survives malformed escapes in its path, query and body', async ({ user }) => {
  const session = await createSession(user.api, { title: 'fuzz prefixes' });
  const share = await mutate<{ id: string }>(user.api, 'share.create', { sessionId: session.id, scope: 'live', expires: '1d' });
  expect(share.status).toBe(200);
  const { token } = await createToken(user.api, 'fuzz prefixes');
  const cookie = await cookieHeaderOf(user.api);
  const own: SurfaceIds = { session: session.id, project: 'p', sha: 'a'.repeat(40), attachment: 'x.txt', share: share.data.id };
  // Every row of the matrix (tests/surface-matrix.test.ts holds it to every prefix the server answers) and every page.
  const targets = [
    ...ROUTES.map((row) => ({ what: row.file, url: row.url, method: row.method, body: row.body, headers: row.headers ?? {}, bearer: row.access !== 'public', write: row.write || row.method === 'POST' })),
    ...PAGES.map((row) => ({ what: row.file, url: row.url, method: 'GET' as const, body: undefined, headers: {}, bearer: false, write: false })),
  ];
  const caseOf = fc.record({
    target: fc.constantFrom(...targets),
    seg: segment,
    // where it goes: every id, one path segment, an extra segment, the query, a raw body
    where: fc.constantFrom('ids', 'segment', 'append', 'query', 'body'),
    at: fc.oneof(noSplit, fc.nat(6)),
    body: fc.oneof(segment, malformedJson),
  });

  const state = { cases: 0, problems: [] as string[] };
  const { problems } = state;
  await runProperty(
    'prefixes',
    fc.asyncProperty(caseOf, async ({ target, seg, where, at, body }) => {
      const cases = ++state.cases;
      const ids = where === 'ids' ? { session: seg, project: seg, sha: seg, attachment: seg, share: seg } : own;
      let [path = '/', query] = target.url(ids).split(/\?(.*)/s);
      if (where === 'segment') {
        const parts = path.split('/');
        parts[1 + ((at < 0 ? 0 : at) % Math.max(1, parts.length - 1))] = seg;
        path = parts.join('/');
      } else if (where === 'append') path = `${path.replace(/\/$/, '')}/${seg}`;
      else if (where === 'query') query = `${query ? `${query}&` : ''}${seg}=${seg}&input=${seg}&format=${seg}&name=${seg}`;
      const url = `${path}${query ? `?${query}` : ''}`;
      const valid = target.body?.(ids);
      const headers: Record<string, string> = { ...target.headers, ...(target.bearer ? { authorization: `Bearer ${token}`, 'x-entity-memory-token': token } : { cookie }) };
      let payload: BodyInit | undefined;
      if (target.method === 'POST') {
        if (where === 'body') payload = body;
        else if (valid?.json !== undefined) payload = JSON.stringify(valid.json);
        else if (valid?.form) payload = new URLSearchParams(valid.form);
        else if (valid?.raw) payload = new Uint8Array(valid.raw);
        else payload = body;
        if (typeof payload === 'string') headers['content-type'] ??= 'application/json';
      }
      const before = target.write ? writtenFiles(user.id) : '';
      const answer = await send(url, { method: target.method, headers, ...(payload !== undefined ? { body: payload } : {}), readHead: url.startsWith('/api/events') });
      judge(`${target.method} ${url.slice(0, 160)} (${where})`, answer, problems);
      // A refused request leaves the user's folders as they were.
      if (target.write && answer.status >= 400 && writtenFiles(user.id) !== before) problems.push(`${target.method} ${url.slice(0, 160)} → ${answer.status} but wrote files`);
      if (cases % 100 === 0 && !(await healthy())) problems.push(`server down after case ${cases}`);
    }),
    state,
  );
  expect(problems).toEqual([]);
  expect(await healthy()).toBe(true);
  expect(escapes()).toEqual([]);
});
