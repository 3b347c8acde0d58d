import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient, ModelError } from './chat-client.js';
import { startModelServer, type ModelServer } from './testing/model-server.js';

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
});
