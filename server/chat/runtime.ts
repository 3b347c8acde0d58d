import { getAuthStore, getEventHub, getModelService } from '@/server/runtime';
import { getUserGate } from '@/server/cluster/user-gate';
import { ChatDispatcher } from './dispatcher';

const KEY = Symbol.for('entity-memory.chat-dispatcher');
const holder = globalThis as typeof globalThis & { [KEY]?: ChatDispatcher };

/** The process's one dispatcher (on globalThis, like the stores: one copy for every module graph). */
export function getChatDispatcher(): ChatDispatcher {
  if (!holder[KEY]) {
    const dispatcher = new ChatDispatcher({
      publish: (userId, event) => getEventHub().publish(userId, event),
      chatModel: (requested) => getModelService().chatModel(requested),
      holdWrite: (userId) => getUserGate().continueWrite(userId),
    });
    // A disabled user's running turns stop at once, like their event streams (DESIGN §2).
    const auth = getAuthStore();
    auth.users.onAccessChange((userId) => {
      if (auth.users.get(userId)?.disabled) void dispatcher.stopUser(userId);
    });
    holder[KEY] = dispatcher;
  }
  return holder[KEY];
}
