import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient, ModelError, timeoutFromEnv } from './chat-client.js';
import { startModelServer, type ModelServer } from './testing/model-server.js';

// A real collection in the middle of a stream: what let Node 20 drop the weakly held timeout.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('OpenAI-compatible chat client against the loopback model server', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server.close());

  it('completes and streams the same text', async () => {
    const client = createChatClient({ baseUrl: server.url, model: 'test-model' });
    const request = { messages: [{ role: 'user' as const, content: 'hello there world' }] };
    expect(await client.complete(request)).toBe('You said: hello there world');
    const deltas: string[] = [];
    const text = await client.stream(request, (delta) => deltas.push(delta));
    expect(text).toBe('You said: hello there world');
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('reports an unreachable server and an error status as ModelError', async () => {
    const down = createChatClient({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 2_000 });
    await expect(down.complete({ messages: [] })).rejects.toBeInstanceOf(ModelError);
    const wrong = createChatClient({ baseUrl: server.url.replace(/\/v1$/, "/v2"), model: 'm' });
    await expect(wrong.complete({ messages: [] })).rejects.toMatchObject({ status: 404 });
  });

  it('ends a reply still trickling in when the time limit is up, garbage collection or not', async () => {
    const timeoutMs = timeoutFromEnv({ OPENPROGRAM_LLM_TIMEOUT_MS: '400' });
    const client = createChatClient({ baseUrl: server.url, model: 'test-model', timeoutMs });
    const caller = new AbortController();
    const started = performance.now();
    const deltas: string[] = [];
    const reply = client.streamChat({ signal: caller.signal, messages: [{ role: 'user', content: 'slowly [[delay:100]] [[words:30]]' }] }, (delta) => {
      deltas.push(delta);
      collectGarbage();
    });
    await expect(reply).rejects.toThrow(new ModelError('the model did not finish its answer within 400 ms'));
    expect(deltas.length).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(2_000); // the whole reply takes over 3 s
  });

  it('still lets the caller stop a stream, which is no time-out', async () => {
    const client = createChatClient({ baseUrl: server.url, model: 'test-model', timeoutMs: 5_000 });
    const caller = new AbortController();
    const reply = client.stream({ signal: caller.signal, messages: [{ role: 'user', content: 'long [[delay:50]] [[words:100]]' }] }, () => caller.abort());
    await expect(reply).rejects.not.toBeInstanceOf(ModelError);
  });
});

describe('redirects from the model server', () => {
  let modelServer: ModelServer;
  let redirector: ReturnType<typeof createServer>;
  let redirectorUrl: string;
  const hits: string[] = [];
  beforeAll(async () => {
    modelServer = await startModelServer();
    redirector = createServer((request, response) => {
      hits.push(request.url ?? '');
      request.resume();
      if (request.url === '/moved/chat/completions') {
        response.writeHead(308, { location: '/v1/chat/completions' }).end();
      } else if (request.url === '/elsewhere/chat/completions') {
        response.writeHead(307, { location: `${modelServer.url}/chat/completions` }).end();
      } else if (request.url === '/loop/chat/completions') {
        response.writeHead(307, { location: '/loop/chat/completions' }).end();
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'same origin' } }] }));
      }
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await modelServer.close();
    await new Promise((resolve) => redirector.close(resolve));
  });

  it('follows a redirect within the same origin', async () => {
    const client = createChatClient({ baseUrl: `${redirectorUrl}/moved`, model: 'm' });
    expect(await client.complete({ messages: [{ role: 'user', content: 'hi' }] })).toBe('same origin');
    expect(hits.slice(-2)).toEqual(['/moved/chat/completions', '/v1/chat/completions']);
  });

  it('refuses a redirect to another origin and sends the conversation nowhere else', async () => {
    const client = createChatClient({ baseUrl: `${redirectorUrl}/elsewhere`, model: 'm', apiKey: 'secret-key' });
    await expect(client.complete({ messages: [{ role: 'user', content: 'private words' }] })).rejects.toThrow(/redirected to another origin/);
    await expect(client.stream({ messages: [{ role: 'user', content: 'private words' }] }, () => undefined)).rejects.toBeInstanceOf(ModelError);
    expect(modelServer.requests).toHaveLength(0);
  });

  it('gives up on a redirect loop', async () => {
    const client = createChatClient({ baseUrl: `${redirectorUrl}/loop`, model: 'm' });
    await expect(client.complete({ messages: [] })).rejects.toThrow(/redirected more than 5 times/);
  });
});
