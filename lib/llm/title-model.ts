import type { TitleModel } from '../store/titles/title-model.js';
import type { ChatModel } from './chat-client.js';

/** The store's title interface over a chat model. */
export function titleModelFrom(model: ChatModel): TitleModel {
  return {
    complete: (request) =>
      model.complete({
        messages: [{ role: 'system', content: request.system }, ...request.messages],
        maxTokens: request.maxTokens,
        temperature: request.temperature,
      }),
  };
}
