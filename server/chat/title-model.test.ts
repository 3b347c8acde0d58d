import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatClient } from '@/lib/llm/chat-client';
import { startModelServer, type ModelServer } from '@/lib/llm/testing/model-server';
import { TITLE_SYSTEM_PROMPT } from '@/lib/store/titles/title-model';
import { titleModelFrom } from './title-model';

describe('the title model over the chat client, against the loopback model server', () => {
  let server: ModelServer;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(() => server.close());

  it('sends the title request with its parameters', async () => {
    const model = titleModelFrom(createChatClient({ baseUrl: server.url, model: 'test-model' }));
    const answer = await model.complete({ system: TITLE_SYSTEM_PROMPT, messages: [{ role: 'user', content: 'plan a trip to kyoto' }], maxTokens: 50, temperature: 0.3 });
    expect(answer).toBe('Title: "Plan A Trip To"');
    expect(server.requests.at(-1)?.body).toMatchObject({ model: 'test-model', max_tokens: 50, temperature: 0.3, stream: false });
  });
});
