import { zipSync } from 'fflate';
import { bearer, createToken, expect, query, test } from '../fixtures';

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
