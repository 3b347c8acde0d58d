import http from 'node:http';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { BASE_URL, bearer, createToken, expect, query, test } from '../fixtures';

/**
 * Issue 27.5 through the built server: a state-directory zip bomb sent to POST /api/import is
 * refused with 413 and a message that names the limit; the user has no session afterwards and
 * the next ordinary import works.
 */
test('a zip bomb uploaded to /api/import is a 413 that names the limit; nothing is imported', async ({ user }) => {
  const { token } = await createToken(user.api);
  const bomb = zipSync(
    {
      'state/sessions/op-one/meta.json': new TextEncoder().encode('{"id":"op-one"}'),
      'state/sessions/op-one/.git/objects/ab/cdef': new Uint8Array(64 * 1024 * 1024),
    },
    { level: 9 },
  );
  expect(bomb.length).toBeLessThan(1024 * 1024);
  const refused = await user.api.post('/api/import?name=state.zip', { headers: { ...bearer(token), 'content-type': 'application/octet-stream' }, data: Buffer.from(bomb) });
  expect(refused.status()).toBe(413);
  const body = (await refused.json()) as { error?: unknown };
  expect(JSON.stringify(body)).toMatch(/unpacks to more than 200 times its packed size, as a zip bomb does \(OPENPROGRAM_IMPORT_ZIP_MAX_RATIO\)/);
  const listed = await query<{ rows: unknown[] }>(user.api, 'session.list', { limit: 200 });
  expect(listed.data.rows).toEqual([]);

  const line = { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 'after-bomb', timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: 'hi' } };
  const ok = await user.api.post('/api/import?name=proj/after-bomb.jsonl', { headers: { ...bearer(token), 'content-type': 'application/octet-stream' }, data: Buffer.from(`${JSON.stringify(line)}\n`) });
  expect(ok.status()).toBe(200);
  expect(await ok.json()).toMatchObject({ added: 1, skipped: [] });
});

/** POST with node's http client: the answer, or the socket error a client sees when the server resets it. */
function postRaw(path: string, headers: Record<string, string>, body: Buffer, agent: http.Agent): Promise<{ status: number; text: string } | { error: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const req = http.request(`${BASE_URL}${path}`, { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => ((settled = true), resolve({ status: res.statusCode ?? 0, text })));
      res.on('error', (error) => settled || ((settled = true), resolve({ error: error.message })));
    });
    req.on('error', (error) => settled || ((settled = true), resolve({ error: (error as NodeJS.ErrnoException).code ?? error.message })));
    req.end(body);
  });
}

/** A state zip of one entry of `bytes` zeros, streamed into deflate (about a thousandth of it packed). */
function zeroBomb(bytes: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  return new Promise((resolve, reject) => {
    const zip = new Zip((error, chunk, final) => {
      if (error) return reject(error);
      parts.push(chunk);
      if (final) resolve(Buffer.concat(parts));
    });
    const entry = new ZipDeflate('state/sessions/bomb/.git/objects/ab/cdef', { level: 9 });
    zip.add(entry);
    const block = new Uint8Array(4 * 1024 * 1024);
    for (let sent = 0; sent < bytes; sent += block.length) entry.push(block, sent + block.length >= bytes);
    zip.end();
  });
}

test('a refusal in the middle of a large upload reaches the client, on a kept-alive connection too: the 413, not a reset', async ({ user }) => {
  // Each refusal comes ~30 s after the upload (serve.ts's readRestOfSmallBody waits out its 30 s
  // for an end the consumed body never emits: a known defect, in stop 44's note), three in a row.
  test.setTimeout(240_000);
  const { token } = await createToken(user.api);
  const bomb = await zeroBomb(1024 * 1024 * 1024);
  expect(bomb.length).toBeGreaterThan(512 * 1024);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let attempt = 1; attempt <= 3; attempt++) {
    const answer = await postRaw('/api/import?name=state.zip', { ...bearer(token), 'content-type': 'application/octet-stream' }, bomb, agent);
    expect(answer, `attempt ${attempt}`).toMatchObject({ status: 413 });
    expect('text' in answer ? answer.text : '').toMatch(/OPENPROGRAM_IMPORT_ZIP_MAX_RATIO/);
  }
  agent.destroy();
  expect((await user.api.get('/api/health')).status()).toBe(200);
});

/**
 * A refusal before the body is read (no name, a bad token) is answered to every client, however
 * much of its upload is still on the way: the server drains the rest instead of closing the socket
 * under it. Answered with `connection: close`, 13 of 200 such uploads met EPIPE instead of the
 * answer (the routes fuzz case that failed stop 41's CI).
 */
test('200 uploads of 800 KB refused before their body is read: each client gets its answer, none a reset', async ({ user }) => {
  const { token } = await createToken(user.api);
  const body = 'é'.repeat(400_000);
  const statuses: Array<number | string> = [];
  for (let round = 0; round < 20; round++) {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${BASE_URL}/api/import${i % 2 ? '' : '?name=x.jsonl'}`, { method: 'POST', headers: i % 2 ? bearer(token) : { authorization: 'Bearer em_0000000000000000_not-a-token' }, body })
          .then(async (response) => (await response.text(), response.status))
          .catch((error: Error) => String((error.cause as Error | undefined)?.message ?? error.message)),
      ),
    );
    statuses.push(...answers);
  }
  expect(statuses.filter((status) => status !== 400 && status !== 401)).toEqual([]);
});
