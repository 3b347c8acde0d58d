import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SessionStore } from '../../../store/index.js';
import { InstanceControl, type InstanceRuntimePort } from '../instance-control.js';
import type { EventHandoff } from '../ports.js';
import { UserGate } from '../user-gate.js';

/**
 * An instance without its HTTP server, for the engine's tests: a data directory, its gate, the
 * users' stores, and the event ids a hub would number (server/runtime.ts is the real one).
 */
export class LocalInstance implements InstanceRuntimePort {
  readonly gate: UserGate;
  readonly rsyncLocation: string;
  readonly stores = new Map<string, SessionStore>();
  /** per user: the boot and sequence of their event ids, as the hub keeps them */
  readonly events = new Map<string, EventHandoff>();
  readonly closedStreams: string[] = [];

  constructor(
    readonly id: string,
    readonly dataDir: string,
  ) {
    // as server/runtime.ts makes them
    for (const dir of ['users', 'workspaces']) mkdirSync(join(dataDir, dir), { recursive: true });
    this.gate = new UserGate(dataDir);
    this.rsyncLocation = dataDir;
  }

  control(): InstanceControl {
    return new InstanceControl(this);
  }

  async store(userId: string): Promise<SessionStore> {
    let store = this.stores.get(userId);
    if (!store) {
      store = await SessionStore.open({ stateDir: join(this.dataDir, 'users', userId), workspaceRoot: join(this.dataDir, 'workspaces', userId), debounceMs: 50 });
      this.stores.set(userId, store);
    }
    return store;
  }

  /** One event of the user, numbered as the hub would. */
  publish(userId: string, type: string): string {
    const state = this.events.get(userId) ?? { boot: `boot${this.id}`, seq: 0, events: [] };
    state.seq += 1;
    const event = { id: `${state.boot}-${state.seq}`, type, data: {} };
    state.events.push(event);
    this.events.set(userId, state);
    return event.id;
  }

  async settleUser(userId: string): Promise<void> {
    const store = this.stores.get(userId);
    if (store) {
      await store.idle();
      await store.flush();
    }
  }
  closeStreams(userId: string): EventHandoff {
    this.closedStreams.push(userId);
    return structuredClone(this.events.get(userId) ?? { boot: `boot${this.id}`, seq: 0, events: [] });
  }
  adoptEvents(userId: string, handoff: EventHandoff): void {
    this.events.set(userId, structuredClone(handoff));
  }
  forgetEvents(userId: string): void {
    this.events.delete(userId);
  }
  async closeUser(userId: string): Promise<void> {
    await this.stores.get(userId)?.close();
    this.stores.delete(userId);
  }
  servesUser(userId: string): boolean {
    return this.stores.has(userId);
  }
  allowedRoots(): readonly string[] {
    return [];
  }
  async closeAll(): Promise<void> {
    for (const id of [...this.stores.keys()]) await this.closeUser(id);
  }
}
