import type { APIRequestContext, APIResponse } from '@playwright/test';
import {
  BASE_URL,
  bearer,
  createSession,
  createToken,
  createUser,
  expect,
  mutate,
  newApiContext,
  query,
  storeSnapshot,
  test,
} from '../fixtures';

interface Saved {
  id: string;
  name: string;
  size: number;
  mime: string;
}

function upload(api: APIRequestContext, sessionId: string, name: string, buffer: Buffer, mimeType = 'text/plain', headers: Record<string, string> = {}): Promise<APIResponse> {
  return api.post('/api/attachments', { multipart: { sessionId, file: { name, mimeType, buffer } }, headers });
}

test('upload answers {id, name, size, mime}; the download is the same bytes, as an attachment, nosniff', async ({ user }) => {
  await createSession(user.api, { id: 'files' });
  const bytes = Buffer.from('col1,col2\n1,2\n');
  const response = await upload(user.api, 'files', 'report 2026.csv', bytes, 'text/csv');
  expect(response.status()).toBe(200);
  const saved = (await response.json()) as Saved;
  expect(saved).toEqual({ id: 'report_2026.csv', name: 'report 2026.csv', size: bytes.length, mime: 'text/csv' });

  const download = await user.api.get(`/api/attachments/files/${saved.id}`);
  expect(download.status()).toBe(200);
  expect(await download.body()).toEqual(bytes);
  expect(download.headers()['content-disposition']).toBe(`attachment; filename="report_2026.csv"; filename*=UTF-8''report_2026.csv`);
  expect(download.headers()['x-content-type-options']).toBe('nosniff');
  expect(download.headers()['content-length']).toBe(String(bytes.length));
  expect(download.headers()['content-type']).toBe('text/csv');

  // The same name again gets its own id; a path in the name is dropped; HTML is never rendered.
  const second = (await (await upload(user.api, 'files', 'report 2026.csv', Buffer.from('x'))).json()) as Saved;
  expect(second.id).toBe('report_2026-2.csv');
  const sneaky = (await (await upload(user.api, 'files', '../../meta.json', Buffer.from('{}'))).json()) as Saved;
  expect(sneaky.id).toBe('meta.json');
  const page = (await (await upload(user.api, 'files', 'page.html', Buffer.from('<script>alert(1)</script>'), 'text/html')).json()) as Saved;
  const html = await user.api.get(`/api/attachments/files/${page.id}`);
  expect(html.headers()['content-disposition']).toMatch(/^attachment;/);
  expect(html.headers()['x-content-type-options']).toBe('nosniff');
  // The session's own meta.json is not reachable through the attachments path.
  expect(JSON.parse((await (await user.api.get('/api/attachments/files/meta.json')).body()).toString())).toEqual({});
});

test('an attachment is committed with the next turn', async ({ user }) => {
  await createSession(user.api, { id: 'committed' });
  const saved = (await (await upload(user.api, 'committed', 'notes.md', Buffer.from('# notes\n'), 'text/markdown')).json()) as Saved;
  await mutate(user.api, 'message.append', { sessionId: 'committed', message: { role: 'user', content: `see [attachment:${saved.id}]` } });
  const { sessionCommit } = (await mutate<{ sessionCommit: string }>(user.api, 'turn.finalize', { sessionId: 'committed' })).data;
  const diff = (await query<{ files: Array<{ path: string; status: string }> }>(user.api, 'timeline.diff', { sessionId: 'committed', sha: sessionCommit })).data;
  expect(diff.files).toContainEqual(expect.objectContaining({ path: `workdir/attachments/${saved.id}`, status: 'added' }));
});

test('a Bearer token uploads and downloads; no credentials are 401; a cross-origin cookie upload is 403 and saves nothing', async ({ user, request }) => {
  await createSession(user.api, { id: 'agent-files' });
  const { token } = await createToken(user.api);
  const agent = await newApiContext({ ...bearer(token), origin: 'https://elsewhere.example' });
  const byToken = await upload(agent, 'agent-files', 'a.txt', Buffer.from('from the agent'));
  expect(byToken.status()).toBe(200);
  expect((await agent.get('/api/attachments/agent-files/a.txt')).status()).toBe(200);
  await agent.dispose();

  expect((await upload(request, 'agent-files', 'b.txt', Buffer.from('x'))).status()).toBe(401);
  expect((await request.get('/api/attachments/agent-files/a.txt')).status()).toBe(401);
  const before = storeSnapshot(user.id);
  const crossOrigin = await upload(user.api, 'agent-files', 'c.txt', Buffer.from('x'), 'text/plain', { origin: 'https://evil.example' });
  expect(crossOrigin.status()).toBe(403);
  expect(await crossOrigin.json()).toEqual({ error: 'cross-origin request refused' });
  expect(storeSnapshot(user.id)).toBe(before);
});

test('a file over 20 MB is 413 with a message; malformed uploads are 400', async ({ user }) => {
  await createSession(user.api, { id: 'big' });
  const before = storeSnapshot(user.id);
  const tooBig = await upload(user.api, 'big', 'big.bin', Buffer.alloc(20 * 1024 * 1024 + 1, 1), 'application/octet-stream');
  expect(tooBig.status()).toBe(413);
  expect(await tooBig.json()).toEqual({ error: 'attachment "big.bin" is larger than 20 MB' });
  expect(storeSnapshot(user.id)).toBe(before);

  const noFile = await user.api.post('/api/attachments', { multipart: { sessionId: 'big' } });
  expect(noFile.status()).toBe(400);
  expect((await noFile.json()).error).toMatch(/file required/);
  const noSession = await user.api.post('/api/attachments', { multipart: { file: { name: 'x.txt', mimeType: 'text/plain', buffer: Buffer.from('x') } } });
  expect(noSession.status()).toBe(400);
  expect((await noSession.json()).error).toMatch(/sessionId required/);
  const notMultipart = await user.api.post('/api/attachments', { data: { sessionId: 'big' } });
  expect(notMultipart.status()).toBe(400);
  const broken = await user.api.post('/api/attachments', { headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, data: 'not really multipart' });
  expect(broken.status()).toBe(400);
  expect(storeSnapshot(user.id)).toBe(before);
});

test('another user\'s session is 404 exactly like a missing one, for upload and download', async ({ user, adminApi }) => {
  await createSession(user.api, { id: 'private-files' });
  await upload(user.api, 'private-files', 'secret.txt', Buffer.from('secret'));
  const other = await createUser(adminApi);

  const foreignDownload = await other.api.get('/api/attachments/private-files/secret.txt');
  const foreignUpload = await upload(other.api, 'private-files', 'intrude.txt', Buffer.from('x'));
  expect(foreignDownload.status()).toBe(404);
  expect(foreignUpload.status()).toBe(404);
  const downloadBody = await foreignDownload.json();
  const uploadBody = await foreignUpload.json();
  expect(downloadBody).toEqual({ error: 'unknown session: private-files' });
  expect(uploadBody).toEqual(downloadBody);

  // Once it exists nowhere, the answers are the same.
  await mutate(user.api, 'session.delete', { id: 'private-files' });
  expect(await (await other.api.get('/api/attachments/private-files/secret.txt')).json()).toEqual(downloadBody);
  expect(await (await upload(other.api, 'private-files', 'intrude.txt', Buffer.from('x'))).json()).toEqual(uploadBody);
  await other.api.dispose();
});

test('path escapes are refused and nothing outside the attachments folder is served', async ({ user }) => {
  await createSession(user.api, { id: 'escape' });
  await upload(user.api, 'escape', 'ok.txt', Buffer.from('fine'));
  const cookie = (await user.api.storageState()).cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  for (const path of [
    '/api/attachments/escape/..%2Fmeta.json',
    '/api/attachments/escape/..%2F..%2F..%2Findex.json',
    '/api/attachments/escape/%2E%2E',
    '/api/attachments/escape/.gitkeep',
    '/api/attachments/escape/%2Fetc%2Fpasswd',
    '/api/attachments/escape/ok.txt%00.png',
    '/api/attachments/..%2F..%2Fauth/users.json',
    '/api/attachments/escape/nope.txt',
  ]) {
    // fetch, not Playwright: it keeps the encoded path exactly as written.
    const response = await fetch(`${BASE_URL}${path}`, { headers: { cookie } });
    // `escape/%2E%2E` normalises to /api/attachments itself, which only takes POST (405).
    expect(path.endsWith('%2E%2E') ? [405] : [400, 404], path).toContain(response.status);
    const text = await response.text();
    expect(text, path).not.toContain('"id"');
    expect(text).not.toContain('fine');
  }
});
