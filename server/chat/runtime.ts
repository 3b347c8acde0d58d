import { getEventHub, getModelService } from '@/server/runtime';
import { ChatDispatcher } from './dispatcher';

const KEY = Symbol.for('entity-memory.chat-dispatcher');
const holder = globalThis as typeof globalThis & { [KEY]?: ChatDispatcher };

/** The process's one dispatcher (on globalThis, like the stores: one copy for every module graph). */
export function getChatDispatcher(): ChatDispatcher {
  holder[KEY] ??= new ChatDispatcher({
    publish: (userId, event) => getEventHub().publish(userId, event),
    chatModel: (requested) => getModelService().chatModel(requested),
  });
  return holder[KEY];
}
