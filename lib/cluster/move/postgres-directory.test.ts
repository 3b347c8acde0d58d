import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ControlListener, type ControlMessage } from '../control-channel.js';
import { createPool, migrate, type Pool } from '../db.js';
import { HaproxyMapSync } from '../haproxy-map.js';
import { MoveEngine, MoveJournal, openMover, ShardConflictError } from './index.js';
import { seedUser, USER } from './testing/fixture.js';
import { LocalInstance } from './testing/local-instance.js';
import { ShardDirectory } from '../shard-directory.js';
import { startTestPostgres, type TestPostgres } from '../testing/postgres.js';

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * HAProxy's runtime API as far as the map sync speaks it (`show map`, `set map`, `add map`,
 * `del map`), on a unix socket: the real HAProxy is the e2e's (e2e/cluster).
 */
function fakeHaproxy(socketPath: string): { entries: Map<string, string>; close(): Promise<void> } {
  const entries = new Map<string, string>();
  const server = net.createServer((socket) => {
    socket.setEncoding('utf8');
    socket.once('data', (line: string) => {
      const [verb, , , key, value] = line.trim().split(/\s+/);
      let answer = '';
      if (verb === 'show') answer = [...entries].map(([k, v], index) => `0x${(index + 1).toString(16)} ${k} ${v}\n`).join('');
      else if (verb === 'set' && !entries.has(key!)) answer = 'entry not found.\n';
      else if (verb === 'set' || verb === 'add') entries.set(key!, value!);
      else if (verb === 'del') entries.delete(key!);
      socket.end(answer);
    });
  });
  server.listen(socketPath);
  return { entries, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('ShardDirectory on a real Postgres: the move engine\'s directory', () => {
  let postgres: TestPostgres;
  let pool: Pool;
  let directory: ShardDirectory;
  let scratch: string;
  let listener: ControlListener;
  const heard: ControlMessage[] = [];

  beforeAll(async () => {
    // Its own ports: vitest runs cluster-node.test.ts (5010-5019) at the same time, and both would take the first free one.
    postgres = await startTestPostgres({ portRange: [5000, 5009], prefix: 'shard-directory-pg-' });
    pool = createPool(postgres.url, 4);
    await migrate(pool);
    directory = new ShardDirectory(pool);
    await directory.register({ id: 'a', url: 'http://127.0.0.1:1', weight: 1 });
    await directory.register({ id: 'b', url: 'http://127.0.0.2:2', weight: 1 });
    listener = new ControlListener({ databaseUrl: postgres.url, onMessage: (message) => heard.push(message), onConnected: async () => undefined });
    await listener.start();
    scratch = mkdtempSync(join(tmpdir(), 'shard-directory-'));
  });

  afterAll(async () => {
    await listener?.stop();
    await pool?.end();
    postgres?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  beforeEach(async () => {
    heard.length = 0;
    await pool.query('DELETE FROM user_shard');
    await pool.query("INSERT INTO user_shard (user_id, shard, epoch, state) VALUES ($1, 'a', 1, 'active')", [USER]);
  });

  it('changes the state only at the epoch it is told, and tells every instance', async () => {
    expect(await directory.setState(USER, 'moving', 1)).toEqual({ shard: 'a', epoch: 1, state: 'moving' });
    expect(await directory.setState(USER, 'frozen', 1)).toEqual({ shard: 'a', epoch: 1, state: 'frozen' });
    const stale = directory.setState(USER, 'active', 2);
    await expect(stale).rejects.toThrow(ShardConflictError);
    await expect(stale).rejects.toMatchObject({ code: 'conflict', found: { shard: 'a', epoch: 1, state: 'frozen' } });
    await expect(directory.setState('fedcba9876543210', 'moving', 1)).rejects.toThrow(/no longer at epoch 1 \(user_shard has no row\)/);
    expect(await directory.owner(USER)).toEqual({ shard: 'a', epoch: 1, state: 'frozen' });
    await eventually(() => heard.filter((message) => message.kind === 'frozen').length === 2, 'two state messages');
    expect(heard).toEqual([
      { kind: 'frozen', userId: USER, epoch: 1 },
      { kind: 'frozen', userId: USER, epoch: 1 },
    ]);
  });

  it('flips only from the owner at the epoch, raising the epoch by one; a refused flip raises ShardConflictError and changes nothing', async () => {
    await directory.setState(USER, 'frozen', 1);
    await expect(directory.flip(USER, 'b', 'a', 1)).rejects.toThrow(/not on b at epoch 1: user_shard has a at epoch 1 \(frozen\)/);
    await expect(directory.flip(USER, 'a', 'b', 7)).rejects.toMatchObject({ name: 'ShardConflictError', found: { shard: 'a', epoch: 1 } });
    expect(await directory.owner(USER)).toEqual({ shard: 'a', epoch: 1, state: 'frozen' });
    expect(await directory.flip(USER, 'a', 'b', 1)).toEqual({ shard: 'b', epoch: 2, state: 'active' });
    await expect(directory.flip(USER, 'a', 'b', 1)).rejects.toThrow(ShardConflictError);
    await eventually(() => heard.some((message) => message.kind === 'moved'), 'the moved message');
    expect(heard.filter((message) => message.kind === 'moved')).toEqual([{ kind: 'moved', userId: USER, epoch: 2 }]);
  });

  it('lets exactly one of two racing flips win', async () => {
    const results = await Promise.allSettled([directory.flip(USER, 'a', 'b', 1), directory.flip(USER, 'a', 'b', 1), directory.flip(USER, 'a', 'a', 1)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    for (const result of results) if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(ShardConflictError);
    expect((await directory.owner(USER))!.epoch).toBe(2);
  });

  it('finds an instance by id with its URL', async () => {
    expect(await directory.instance('b')).toEqual({ id: 'b', url: 'http://127.0.0.2:2' });
    expect(await directory.instance('nope')).toBeNull();
    expect((await directory.instances()).map((row) => [row.id, row.url])).toEqual([
      ['a', 'http://127.0.0.1:1'],
      ['b', 'http://127.0.0.2:2'],
    ]);
  });

  it('carries a whole move, and the flip reaches the HAProxy map sync, which points the user at the new owner', async () => {
    const root = mkdtempSync(join(scratch, 'move-'));
    const a = new LocalInstance('a', join(root, 'a'));
    const b = new LocalInstance('b', join(root, 'b'));
    const haproxy = fakeHaproxy(join(root, 'haproxy.sock'));
    const sync = new HaproxyMapSync({ pool, databaseUrl: postgres.url, socketPath: join(root, 'haproxy.sock'), mapPath: join(root, 'users.map'), reconcileMs: 60_000, log: () => undefined });
    try {
      await seedUser(a);
      await sync.start();
      expect(haproxy.entries.get(USER)).toBe('127.0.0.1:1');
      // The states the engine sets, in the order Postgres took them.
      const states: string[] = [];
      const recording = new (class extends ShardDirectory {
        override async setState(...args: Parameters<ShardDirectory['setState']>) {
          const row = await super.setState(...args);
          states.push(row.state);
          return row;
        }
      })(pool);
      const engine = new MoveEngine({ directory: recording, journal: new MoveJournal(join(root, 'moves')), control: async (id) => (id === 'a' ? a : b).control() });
      const move = await engine.start(USER, 'b');
      expect(move.status).toBe('done');
      expect(await directory.owner(USER)).toEqual({ shard: 'b', epoch: 2, state: 'active' });
      expect((await b.store(USER)).listSessions({ scope: 'all' }).rows).toHaveLength(2);
      // No full comparison runs within the test (every 60 s): only the flip's NOTIFY moves the entry.
      await eventually(() => haproxy.entries.get(USER) === '127.0.0.2:2', 'the map entry on b');
      expect(states).toEqual(['moving', 'frozen']);
    } finally {
      await sync.stop();
      await haproxy.close();
      await a.closeAll();
      await b.closeAll();
    }
  });

  it('openMover takes Postgres when OPENPROGRAM_CLUSTER_DB is set, and refuses a second directory beside it', async () => {
    const secret = 'a-cluster-secret-of-enough-length';
    const engine = openMover({ dataDir: scratch, env: { OPENPROGRAM_CLUSTER_DB: postgres.url, OPENPROGRAM_CLUSTER_SECRET: secret } });
    try {
      expect(engine.directory).toBeInstanceOf(ShardDirectory);
      expect(await engine.directory.owner(USER)).toEqual({ shard: 'a', epoch: 1, state: 'active' });
      await expect(engine.begin(USER, 'c')).rejects.toThrow(/no instance c/);
    } finally {
      await engine.close();
    }
    expect(() => openMover({ dataDir: scratch, env: { OPENPROGRAM_CLUSTER_DB: postgres.url, OPENPROGRAM_CLUSTER_DIRECTORY: join(scratch, 'd.json'), OPENPROGRAM_CLUSTER_SECRET: secret } })).toThrow(/not both/);
    expect(() => openMover({ dataDir: scratch, env: { OPENPROGRAM_CLUSTER_DB: 'mysql://x', OPENPROGRAM_CLUSTER_SECRET: secret } })).toThrow(/postgres:\/\/ URL/);
    expect(() => openMover({ dataDir: scratch, env: { OPENPROGRAM_CLUSTER_SECRET: secret } })).toThrow(/no shard directory/);
  });
});
