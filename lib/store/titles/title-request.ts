import { sliceCodePoints } from '../text.js';
import type { BranchMessage } from '../types.js';
import { TITLE_SYSTEM_PROMPT, type TitleRequest } from './title-model.js';

/** First generation: the first user message and reply (500 each); later: the last 20 messages. */
export function titleRequest(branch: BranchMessage[], first: boolean): TitleRequest {
  const conversation = branch.filter((message) => message.role === 'user' || message.role === 'assistant');
  let messages: TitleRequest['messages'];
  if (first) {
    const user = conversation.find((message) => message.role === 'user');
    const reply = conversation.find((message) => message.role === 'assistant');
    messages = [
      { role: 'user', content: sliceCodePoints(user?.content ?? '', 500) },
      ...(reply ? [{ role: 'assistant' as const, content: sliceCodePoints(reply.content, 500) }] : []),
    ];
  } else {
    messages = conversation.slice(-20).map((message) => ({ role: message.role as 'user' | 'assistant', content: message.content }));
  }
  return { system: TITLE_SYSTEM_PROMPT, messages, maxTokens: 50, temperature: 0.3 };
}
