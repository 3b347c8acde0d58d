import pg from 'pg';
import type { Pool, PoolClient } from './db.js';

/** The one NOTIFY channel: control messages only, never user data (DESIGN §11). */
export const CONTROL_CHANNEL = 'entity_memory_control';

/**
 * `moved`, `disabled`, `password`, `frozen` are the shared kinds (a move and its freeze are
 * lib/cluster/move). The replica adds `user` (a user row changed otherwise: created, prefs),
 * `tokens` (the user's tokens changed), `placed` (a new user_shard row), `settings`, and
 * `shares` (the user's share links were made or revoked: HAProxy's link map follows).
 * Receivers ignore kinds they do not know.
 */
export type ControlKind = 'moved' | 'disabled' | 'password' | 'frozen' | 'user' | 'tokens' | 'placed' | 'settings' | 'shares';

export interface ControlMessage {
  kind: ControlKind;
  userId?: string;
  epoch?: number;
  /** `disabled` / `password`: the user's new session version, so a receiver drops older sign-ins before it reloads */
  sessionVersion?: number;
}

export function parseControlMessage(payload: string | undefined): ControlMessage | null {
  if (!payload) return null;
  try {
    const value = JSON.parse(payload) as Record<string, unknown>;
    if (typeof value.kind !== 'string') return null;
    const message: ControlMessage = { kind: value.kind as ControlKind };
    if (typeof value.userId === 'string') message.userId = value.userId;
    if (typeof value.epoch === 'number') message.epoch = value.epoch;
    if (typeof value.sessionVersion === 'number') message.sessionVersion = value.sessionVersion;
    return message;
  } catch {
    return null;
  }
}

/** Sends a control message; inside a transaction it is delivered at commit, never before. */
export async function notifyControl(db: Pool | PoolClient, message: ControlMessage): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [CONTROL_CHANNEL, JSON.stringify(message)]);
}

export interface ControlListenerOptions {
  databaseUrl: string;
  onMessage: (message: ControlMessage) => void;
  /**
   * After every (re)connect, once LISTEN is in place: messages sent while disconnected are lost,
   * so the caller reloads whatever it keeps.
   */
  onConnected: () => Promise<void>;
  /** between reconnect attempts */
  retryMs?: number;
}

/**
 * LISTEN on a dedicated connection (a pooled one would be handed to queries), reconnecting
 * after any loss with a full reload in between.
 */
export class ControlListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ControlListenerOptions) {}

  /** Resolves once listening and reloaded the first time; rejects if that fails. */
  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl });
    client.on('notification', (notification) => {
      if (notification.channel !== CONTROL_CHANNEL) return;
      const message = parseControlMessage(notification.payload);
      if (message) this.options.onMessage(message);
    });
    client.on('error', (error) => {
      console.error('[cluster] control channel lost:', error.message);
      this.reconnectLater(client);
    });
    client.on('end', () => this.reconnectLater(client));
    await client.connect();
    await client.query(`LISTEN ${CONTROL_CHANNEL}`);
    this.client = client;
    await this.options.onConnected();
  }

  private reconnectLater(client: pg.Client): void {
    if (this.stopped || this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    this.timer = setTimeout(() => {
      this.connect().catch((error: unknown) => {
        console.error('[cluster] control channel: reconnect failed:', (error as Error).message);
        const dummy = new pg.Client();
        this.client = dummy;
        this.reconnectLater(dummy);
      });
    }, this.options.retryMs ?? 1_000);
    this.timer.unref();
  }
}
