import { renameSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { ControlListener } from './control-channel.js';
import type { Pool } from './db.js';

/** One command on HAProxy's runtime API (its stats socket, `level admin`); resolves with the answer. */
export function haproxyCommand(socketPath: string, command: string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`HAProxy's socket did not answer "${command}" in ${timeoutMs} ms`)));
    socket.on('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

/** `http://127.0.0.1:5031` → `127.0.0.1:5031`: what HAProxy's set-dst takes (an IP address, not a name). */
export function mapTarget(instanceUrl: string): string {
  const url = new URL(instanceUrl);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `${url.hostname.replace(/^\[|\]$/g, '')}:${port}`;
}

/** The map user_shard says: user id → the owner's address. */
export async function desiredMap(pool: Pool): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ user_id: string; url: string }>('SELECT us.user_id, i.url FROM user_shard us JOIN instance i ON i.id = us.shard');
  return new Map(rows.map((row) => [row.user_id, mapTarget(row.url)]));
}

/** The map share_link says: link id → its owner's user id (HAProxy then looks the user up in the user map). */
export async function desiredLinksMap(pool: Pool): Promise<Map<string, string>> {
  const { rows } = await pool.query<{ id: string; user_id: string }>('SELECT id, user_id FROM share_link');
  return new Map(rows.map((row) => [row.id, row.user_id]));
}

/** `show map <file>` lines are `<ref> <key> <value>`. */
export function parseShowMap(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^0x[0-9a-f]+ (\S+) (\S+)$/.exec(line.trim());
    if (match) entries.set(match[1]!, match[2]!);
  }
  return entries;
}

export interface MapSyncOptions {
  pool: Pool;
  databaseUrl: string;
  /** HAProxy's stats socket (`stats socket … level admin`) */
  socketPath: string;
  /** the map file as the config names it: HAProxy knows the map by this path */
  mapPath: string;
  /** the share links' map (link id → user id), so `/s/<id>` goes to the link owner's instance; none: links are not routed */
  linksMapPath?: string;
  /** a full comparison this often, besides every message (default 5 s) */
  reconcileMs?: number;
  log?: (line: string) => void;
}

/**
 * Keeps HAProxy's user map equal to user_shard: every `placed` / `moved` message updates that
 * user's entry at once over the runtime API, a full comparison runs at start, after a lost
 * connection and every few seconds, and the map file is rewritten so a restarted HAProxy starts
 * right. The map is only a hint (the instance checks ownership), so a late entry costs a 421.
 * The links map follows share_link the same way, on `shares` messages and in every comparison.
 */
export class HaproxyMapSync {
  private listener: ControlListener | null = null;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly options: MapSyncOptions) {}

  async start(): Promise<void> {
    this.listener = new ControlListener({
      databaseUrl: this.options.databaseUrl,
      onMessage: (message) => {
        if ((message.kind === 'placed' || message.kind === 'moved') && message.userId) this.queue(() => this.syncUser(message.userId!));
        if (message.kind === 'shares') this.queue(() => this.reconcileLinks());
      },
      onConnected: () => this.reconcile(),
    });
    await this.listener.start();
    this.timer = setInterval(() => this.queue(() => this.reconcile()), this.options.reconcileMs ?? 5_000);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.listener?.stop();
    await this.running;
  }

  /** One change at a time, in order. */
  private queue(work: () => Promise<void>): void {
    this.running = this.running.then(work).catch((error: unknown) => this.log(`map sync: ${(error as Error).message}`));
  }

  private log(line: string): void {
    (this.options.log ?? ((text: string) => console.error(`[map-sync] ${text}`)))(line);
  }

  private async command(command: string): Promise<string> {
    const answer = await haproxyCommand(this.options.socketPath, command);
    return answer.trim();
  }

  private async setEntry(key: string, value: string, mapPath = this.options.mapPath): Promise<void> {
    const answer = await this.command(`set map ${mapPath} ${key} ${value}`);
    if (answer === '') return;
    if (!/not found/i.test(answer)) throw new Error(`HAProxy refused "set map": ${answer}`);
    const added = await this.command(`add map ${mapPath} ${key} ${value}`);
    if (added !== '') throw new Error(`HAProxy refused "add map": ${added}`);
  }

  async syncUser(userId: string): Promise<void> {
    const { rows } = await this.options.pool.query<{ url: string }>('SELECT i.url FROM user_shard us JOIN instance i ON i.id = us.shard WHERE us.user_id = $1', [userId]);
    if (rows[0]) await this.setEntry(userId, mapTarget(rows[0].url));
    else await this.command(`del map ${this.options.mapPath} ${userId}`);
  }

  /** Makes HAProxy's maps and their files equal to user_shard and share_link. */
  async reconcile(): Promise<void> {
    await this.reconcileMap(this.options.mapPath, await desiredMap(this.options.pool));
    await this.reconcileLinks();
  }

  async reconcileLinks(): Promise<void> {
    if (this.options.linksMapPath) await this.reconcileMap(this.options.linksMapPath, await desiredLinksMap(this.options.pool));
  }

  private async reconcileMap(mapPath: string, desired: Map<string, string>): Promise<void> {
    const current = parseShowMap(await this.command(`show map ${mapPath}`));
    let changed = 0;
    for (const [key, value] of desired) {
      if (current.get(key) !== value) {
        await this.setEntry(key, value, mapPath);
        changed += 1;
      }
    }
    for (const key of current.keys()) {
      if (!desired.has(key)) {
        await this.command(`del map ${mapPath} ${key}`);
        changed += 1;
      }
    }
    if (changed > 0) this.log(`${changed} ${mapPath === this.options.mapPath ? 'user' : 'link'} map entr${changed === 1 ? 'y' : 'ies'} corrected`);
    const text = [...desired].map(([key, value]) => `${key} ${value}\n`).join('');
    const partial = `${mapPath}.${process.pid}.tmp`;
    writeFileSync(partial, text, { mode: 0o600 });
    renameSync(partial, mapPath);
  }
}
