import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from './testing/model-server.js';
import { describeFetchFailure, fetchModelList } from './model-list.js';

describe('fetchModelList', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer(0, '127.0.0.1', { models: ['alpha', 'beta', 'alpha'] });
  });
  afterAll(async () => server.close());

  it('lists the model ids the server serves', async () => {
    expect(await fetchModelList(server.url)).toEqual({ ok: true, models: ['alpha', 'beta'] });
    expect(await fetchModelList(`${server.url}/`)).toEqual({ ok: true, models: ['alpha', 'beta'] });
  });

  it('says a refused connection in words', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(await fetchModelList(`http://127.0.0.1:${port}/v1`)).toEqual({
      ok: false,
      error: `http://127.0.0.1:${port}/v1/models: the connection was refused (is the server running, on that port?)`,
    });
  });

  it('names a status, a body that is no model list, and a timeout', async () => {
    const odd = createServer((request, response) => {
      if (request.url === '/locked/models') response.writeHead(401, 'Unauthorized').end();
      else if (request.url === '/html/models') response.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
      else if (request.url === '/object/models') response.writeHead(200).end('{"models":[]}');
      // /slow/models never answers
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
    try {
      expect(await fetchModelList(`${base}/locked`)).toEqual({ ok: false, error: `${base}/locked/models answered 401 Unauthorized (check the API key)` });
      expect(await fetchModelList(`${base}/html`)).toMatchObject({ ok: false, error: expect.stringMatching(/did not answer with JSON/) });
      expect(await fetchModelList(`${base}/object`)).toMatchObject({ ok: false, error: expect.stringMatching(/no "data" array/) });
      expect(await fetchModelList(`${base}/slow`, { timeoutMs: 200 })).toEqual({ ok: false, error: `${base}/slow/models: no answer within 0.2 s` });
    } finally {
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  });

  it('describes an unknown failure by its message', () => {
    expect(describeFetchFailure(new TypeError('fetch failed', { cause: { code: 'EWHATEVER', message: 'odd' } }), 1000)).toBe('odd');
    expect(describeFetchFailure(new Error('plain'), 1000)).toBe('plain');
  });
});
