import http from 'node:http';
import { BASE_URL, authStateSnapshot, cookieHeaderOf, expect, mutate, query, test } from '../fixtures';

test('a cross-origin POST carrying the session cookie is refused and writes nothing', async ({ user }) => {
  const before = authStateSnapshot();
  const refused = await mutate(user.api, 'token.create', { name: 'csrf' }, { origin: 'https://evil.example' });
  expect(refused.status).toBe(403);
  expect(refused.body.error?.message).toMatch(/cross-origin/);
  const fetchMetadata = await mutate(user.api, 'token.create', { name: 'csrf' }, { 'sec-fetch-site': 'cross-site' });
  expect(fetchMetadata.status).toBe(403);
  expect(authStateSnapshot()).toBe(before);
  expect((await query<unknown[]>(user.api, 'token.list')).data).toEqual([]);
  // The same request from our own origin works.
  expect((await mutate(user.api, 'token.create', { name: 'same-origin' })).status).toBe(200);
});

/**
 * POST with node's http client: the server may answer 413 and close before the body is all
 * sent, and the answer is what counts, so a write error after it (EPIPE) is not a failure.
 */
function rawPost(path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${BASE_URL}${path}`, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    request.end(body);
  });
}

test('a body over 25 MB is refused with 413', async ({ user }) => {
  const cookie = await cookieHeaderOf(user.api);
  const response = await rawPost('/api/trpc/token.create', { cookie, origin: BASE_URL, 'content-type': 'application/json' }, Buffer.alloc(25 * 1024 * 1024 + 1, 0x20));
  expect(response.status).toBe(413);
  expect((JSON.parse(response.text) as { error: { data: { code: string } } }).error.data.code).toBe('PAYLOAD_TOO_LARGE');
});

test('a chunked body (no Content-Length) is cut off with 413 once it passes 25 MB', async ({ user }) => {
  const cookie = await cookieHeaderOf(user.api);
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < 30) controller.enqueue(chunk);
      else controller.close();
    },
  });
  const response = await fetch(`${BASE_URL}/api/trpc/token.create`, {
    method: 'POST',
    headers: { cookie, origin: BASE_URL, 'content-type': 'application/json' },
    body,
    duplex: 'half',
  } as RequestInit);
  expect(response.status).toBe(413);
});

test('malformed requests are 4xx, never 500', async ({ user }) => {
  const badJson = await user.api.post('/api/trpc/token.create', { headers: { 'content-type': 'application/json' }, data: '{"name":' });
  expect(badJson.status()).toBe(400);
  const unknown = await query(user.api, 'nope.nothing');
  expect(unknown.status).toBe(404);
  const queryAsMutation = await user.api.get('/api/trpc/token.create?input=%7B%22name%22%3A%22x%22%7D');
  expect(queryAsMutation.status()).toBe(405);
  const wrongType = await mutate(user.api, 'token.create', { name: 42 });
  expect(wrongType.status).toBe(400);
  expect(wrongType.body.error?.message).toMatch(/^name: /);
  const extraField = await mutate(user.api, 'token.create', { name: 'x', admin: true });
  expect(extraField.status).toBe(400);
});
