import type { AuthStore } from '@/lib/auth/index';
import { ExchangeSlots, maxOpenExchangesPerUser } from '@/lib/proxy/limits';

/**
 * The proxied exchanges open right now, per user, so that a user who is disabled is cut off at
 * once (DESIGN §2): their streams are destroyed, which aborts the upstream request (forward.ts)
 * and records what had come. One registry per process, on globalThis.
 */
export interface Closable {
  destroy(): void;
}

export class OpenExchanges {
  private readonly byUser = new Map<string, Set<Closable>>();

  /** Track `exchange` until the returned function is called. */
  add(userId: string, exchange: Closable): () => void {
    let set = this.byUser.get(userId);
    if (!set) this.byUser.set(userId, (set = new Set()));
    set.add(exchange);
    return () => {
      set.delete(exchange);
      if (set.size === 0 && this.byUser.get(userId) === set) this.byUser.delete(userId);
    };
  }

  count(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  /** Destroy every open exchange of the user; returns how many. */
  closeUser(userId: string): number {
    const set = this.byUser.get(userId);
    if (!set) return 0;
    this.byUser.delete(userId);
    for (const exchange of set) exchange.destroy();
    return set.size;
  }

  /** Close a user's exchanges whenever their access ends by being disabled. */
  followAccess(auth: Pick<AuthStore, 'users'>): void {
    auth.users.onAccessChange((userId) => {
      if (auth.users.get(userId)?.disabled) this.closeUser(userId);
    });
  }
}

const KEY = Symbol.for('entity-memory.proxy-open-exchanges');
const holder = globalThis as typeof globalThis & { [KEY]?: OpenExchanges };

export function getOpenExchanges(auth: Pick<AuthStore, 'users'>): OpenExchanges {
  if (!holder[KEY]) {
    holder[KEY] = new OpenExchanges();
    holder[KEY].followAccess(auth);
  }
  return holder[KEY];
}

const SLOTS = Symbol.for('entity-memory.proxy-exchange-slots');
const slotsHolder = globalThis as typeof globalThis & { [SLOTS]?: ExchangeSlots };

/** Per-user admission of proxied exchanges, one per process: the cap read from the environment at each admission. */
export function getExchangeSlots(): ExchangeSlots {
  return (slotsHolder[SLOTS] ??= new ExchangeSlots(() => maxOpenExchangesPerUser()));
}
