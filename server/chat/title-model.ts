import type { ChatModel } from '@/lib/llm/chat-client';
import type { TitleModel } from '@/lib/store/index';

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
