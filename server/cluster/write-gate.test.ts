import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '@/lib/llm/testing/model-server';

// Every writer of a user's history behind one move gate (issue 28 item 2): the real handlers on a
// temporary data directory, the loopback model as the proxy's upstream. The runtime reads its
// environment once: set before anything opens a store.
const root = mkdtempSync(join(tmpdir(), 'write-gate-'));
process.env.OPENPROGRAM_DATA_DIR = join(root, 'data');

let model: ModelServer;
let server: http.Server;
let origin: string;
let runtime: typeof import('@/server/runtime');
let gate: ReturnType<typeof import('./user-gate').getUserGate>;
let control: Awaited<ReturnType<typeof import('./instance-runtime').instanceControl>>;
let routes: {
  importUpload: typeof import('@/server/http/import-upload').importUpload;
  uploadAttachment: typeof import('@/server/http/attachments').uploadAttachment;
  archiveRoute: typeof import('@/server/http/session-archive').archiveRoute;
  handleMcpRequest: typeof import('@/server/mcp/http').handleMcpRequest;
  authorizeEvents: typeof import('@/server/events/events-request').authorizeEvents;
  appRouter: typeof import('@/server/api/root').appRouter;
};
let userId: string;
let token: string;

const bearer = () => new Headers({ authorization: `Bearer ${token}` });
const jsonl = (id: string) =>
  [
    { type: 'user', uuid: `${id}-1`, parentUuid: null, sessionId: id, timestamp: '2026-11-20T10:00:00Z', message: { role: 'user', content: 'hi' } },
    { type: 'assistant', uuid: `${id}-2`, parentUuid: `${id}-1`, sessionId: id, timestamp: '2026-11-20T10:00:01Z', message: { role: 'assistant', content: 'hello' } },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');
const bodyOf = (text: string) =>
  (async function* () {
    yield new TextEncoder().encode(text);
  })();
const proxied = (content: string) =>
  fetch(`${origin}/proxy/anthropic/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': token, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model: 'test-model', max_tokens: 50, messages: [{ role: 'user', content }] }),
  });
/** Until the condition holds: the writes under test are counted, not timed. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
const callerOf = () =>
  routes.appRouter.createCaller({ headers: bearer(), user: runtime.getAuthStore().users.get(userId)!, via: 'token', authError: null, ip: null, responseCookies: [], answer: { headers: {} } });

beforeAll(async () => {
  model = await startModelServer();
  process.env.OPENPROGRAM_PROXY_ANTHROPIC_URL = model.root;
  runtime = await import('@/server/runtime');
  gate = (await import('./user-gate')).getUserGate();
  control = await (await import('./instance-runtime')).instanceControl();
  const { serveProxy } = await import('@/server/proxy/handler');
  const { serveExport } = await import('@/server/http/export');
  routes = {
    importUpload: (await import('@/server/http/import-upload')).importUpload,
    uploadAttachment: (await import('@/server/http/attachments')).uploadAttachment,
    archiveRoute: (await import('@/server/http/session-archive')).archiveRoute,
    handleMcpRequest: (await import('@/server/mcp/http')).handleMcpRequest,
    authorizeEvents: (await import('@/server/events/events-request')).authorizeEvents,
    appRouter: (await import('@/server/api/root')).appRouter,
  };
  const auth = runtime.getAuthStore();
  const user = await auth.users.create({ email: 'gate@write.test', password: 'password-123456' });
  userId = user.id;
  token = (await auth.tokens.create(user.id, { name: 'agent' })).token;
  runtime.getProxyUpstreams().set(userId, { name: 'anthropic', kind: 'anthropic', key: 'sk-ant-stored-key' });
  server = http.createServer((req, res) => void (req.url!.startsWith('/proxy/') ? serveProxy(req, res) : serveExport(req, res)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await runtime.closeUserStore(userId);
  await model.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the move gate around every writer', () => {
  it("a move's freeze waits for a proxied exchange in flight until it is recorded", async () => {
    const before = model.requests.length;
    const answer = proxied('slow answer [[wait:300]]');
    await until(() => gate.runningWrites(userId) === 1);
    const frozen = await control.freeze(userId, 'move-proxy');
    // Recorded before the freeze returned: the final copy has it.
    const store = await runtime.getUserStore(userId);
    const recorded = store.listSessions({ scope: 'all', limit: 50 }).rows.filter((row: { source: string }) => row.source !== 'web');
    expect(recorded).toHaveLength(1);
    expect((await store.getBranch(recorded[0]!.id)).map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(frozen.heads).toBeDefined();
    expect((await answer).status).toBe(200);
    expect(model.requests.length).toBe(before + 1);
    await control.unfreeze(userId);
  });

  it('an import upload in progress holds the freeze until its last session is written', async () => {
    let sendRest!: () => void;
    const rest = new Promise<void>((resolve) => (sendRest = resolve));
    const body = (async function* () {
      const text = new TextEncoder().encode(jsonl('held-import'));
      yield text.slice(0, 40);
      await rest;
      yield text.slice(40);
    })();
    const importing = routes.importUpload(bearer(), new URL('http://local/api/import?name=held.jsonl'), body);
    await until(() => gate.runningWrites(userId) === 1);
    const order: string[] = [];
    const freezing = control.freeze(userId, 'move-import').then(() => order.push('frozen'));
    const imported = importing.then((response) => order.push(`imported ${response.status}`));
    sendRest();
    await Promise.all([freezing, imported]);
    expect(order).toEqual(['imported 200', 'frozen']);
    expect((await runtime.getUserStore(userId)).hasSession('cc-held-import')).toBe(true);
    await control.unfreeze(userId);
  });

  it('while frozen every writer answers 503 with Retry-After and writes nothing; reads go on', async () => {
    const store = await runtime.getUserStore(userId);
    const target = (await store.createSession({ source: 'web' })).row.id;
    const sessionsBefore = store.listSessions({ scope: 'all', limit: 50 }).rows.length;
    const upstreamBefore = model.requests.length;
    await control.freeze(userId, 'move-frozen');

    const proxy = await proxied('never sent');
    expect(proxy.status).toBe(503);
    expect(proxy.headers.get('retry-after')).toBe('2');
    expect(await proxy.json()).toEqual({ type: 'error', error: { type: 'api_error', message: 'this account is being moved to another server: writes resume in a few seconds' } });
    expect(model.requests.length).toBe(upstreamBefore);

    const frozenAnswer = { error: 'this account is being moved to another server: writes resume in a few seconds' };
    const imported = await routes.importUpload(bearer(), new URL('http://local/api/import?name=frozen.jsonl'), bodyOf(jsonl('frozen-import')));
    expect([imported.status, imported.headers.get('retry-after'), await imported.json()]).toEqual([503, '2', frozenAnswer]);

    const form = new FormData();
    form.set('sessionId', target);
    form.set('file', new File(['hello'], 'note.txt', { type: 'text/plain' }));
    const attached = await routes.uploadAttachment(new Request('http://local/api/attachments', { method: 'POST', headers: bearer(), body: form }));
    expect([attached.status, attached.headers.get('retry-after'), await attached.json()]).toEqual([503, '2', frozenAnswer]);

    const archiving = new Request('http://local/api/sessions/archive', { method: 'POST', headers: bearer(), body: JSON.stringify({ session_id: target }) });
    const archived = await routes.archiveRoute(archiving, true);
    expect([archived.status, archived.headers.get('retry-after'), await archived.json()]).toEqual([503, '2', frozenAnswer]);

    const caller = callerOf();
    await expect(caller.session.create({})).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(await caller.session.get({ id: target })).toMatchObject({ id: target, archived: false });

    expect(store.listSessions({ scope: 'all', limit: 50 }).rows.length).toBe(sessionsBefore);
    expect(store.hasSession('cc-frozen-import')).toBe(false);
    await control.unfreeze(userId);
  });

  it('a user moved away gets the one 421 from the proxy (nothing upstream), import, export, MCP, the event stream and the API', async () => {
    const owner = { id: 'b', url: 'http://127.0.0.1:49999', epoch: 7 };
    const expectedHeaders = { 'x-entity-memory-owner': 'b', 'x-entity-memory-owner-url': 'http://127.0.0.1:49999', 'cache-control': 'no-store' };
    const expectedBody = {
      error: {
        message: 'this user is served by instance b (http://127.0.0.1:49999); send the request there',
        data: { code: 'MISDIRECTED_REQUEST', httpStatus: 421, owner: { instance: 'b', url: 'http://127.0.0.1:49999', epoch: 7 } },
      },
    };
    const ownerHeaders = (headers: Headers) => ({
      'x-entity-memory-owner': headers.get('x-entity-memory-owner'),
      'x-entity-memory-owner-url': headers.get('x-entity-memory-owner-url'),
      'cache-control': headers.get('cache-control'),
    });
    await control.release(userId, owner);
    try {
      const upstreamBefore = model.requests.length;
      const answers: Response[] = [
        await proxied('never sent either'),
        await routes.importUpload(bearer(), new URL('http://local/api/import?name=moved.jsonl'), bodyOf(jsonl('moved-import'))),
        await fetch(`${origin}/api/export/all.zip`, { headers: bearer() }),
        await routes.handleMcpRequest(new Request('http://local/mcp', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) })),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(421);
        expect(ownerHeaders(answer.headers)).toEqual(expectedHeaders);
        expect(await answer.json()).toEqual(expectedBody);
      }
      expect(model.requests.length).toBe(upstreamBefore);

      const events = await routes.authorizeEvents(bearer());
      expect(events).toEqual({ ok: false, status: 421, body: expectedBody, headers: { ...expectedHeaders, 'content-type': 'application/json' } });

      const context = { headers: bearer(), user: runtime.getAuthStore().users.get(userId)!, via: 'token' as const, authError: null, ip: null, responseCookies: [], answer: { headers: {} as Record<string, string> } };
      const refused = await routes.appRouter.createCaller(context).session.list({}).catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: 'PRECONDITION_FAILED', message: expectedBody.error.message });
      expect(context.answer).toEqual({ status: 421, headers: expectedHeaders });
    } finally {
      gate.clearMoved(userId);
    }
  });
});
