import { notifyControl } from './control-channel.js';
import { inTransaction, type Pool, type PoolClient } from './db.js';
import { ShardConflictError, type InstanceInfo, type ShardDirectoryPort, type ShardOwner, type ShardState } from './shard-directory-port.js';

// One definition for both directories (this one and move/file-directory.ts): the engine sees no difference.
export type { ShardOwner, ShardState } from './shard-directory-port.js';

export interface InstanceRow {
  id: string;
  url: string;
  weight: number;
  healthy: boolean | null;
}

interface OwnerRow {
  shard: string;
  epoch: string | number;
  state: ShardState;
}

function toOwner(row: OwnerRow): ShardOwner {
  return { shard: row.shard, epoch: Number(row.epoch), state: row.state };
}

function describeRow(row: ShardOwner | null): string {
  return row ? `${row.shard} at epoch ${row.epoch} (${row.state})` : 'no row';
}

/**
 * `user_shard` and `instance` in Postgres: the truth every instance's replica and HAProxy's map
 * follow, and the move engine's directory in cluster mode.
 */
export class ShardDirectory implements ShardDirectoryPort {
  constructor(private readonly pool: Pool) {}

  async owner(userId: string): Promise<ShardOwner | null> {
    return this.ownerVia(this.pool, userId);
  }

  private async ownerVia(db: Pool | PoolClient, userId: string): Promise<ShardOwner | null> {
    const { rows } = await db.query<OwnerRow>('SELECT shard, epoch, state FROM user_shard WHERE user_id = $1', [userId]);
    return rows[0] ? toOwner(rows[0]) : null;
  }

  /**
   * A move's state change ('moving' at the pre-copy, 'frozen' for the final copy, 'active' after a
   * roll-back), only while the row is still at `epoch`: a mover that lost a race changes nothing.
   * Instances hear `frozen` (whatever the new state: their replica reloads the row).
   */
  async setState(userId: string, state: ShardState, epoch: number): Promise<ShardOwner> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<OwnerRow>('UPDATE user_shard SET state = $2 WHERE user_id = $1 AND epoch = $3 RETURNING shard, epoch, state', [userId, state, epoch]);
      if (!rows[0]) {
        const found = await this.ownerVia(client, userId);
        throw new ShardConflictError(`the owner of ${userId} is no longer at epoch ${epoch} (user_shard has ${describeRow(found)})`, found);
      }
      const owner = toOwner(rows[0]);
      await notifyControl(client, { kind: 'frozen', userId, epoch: owner.epoch });
      return owner;
    });
  }

  /**
   * A new user goes to the healthy instance with the fewest users per unit of weight, in one
   * statement (`place_user` in schema.sql, serialised by its lock): fifty concurrent
   * placements spread as if made one by one. Placing a placed user returns its owner unchanged.
   */
  async place(userId: string): Promise<ShardOwner> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<OwnerRow>('SELECT shard, epoch, state FROM place_user($1)', [userId]);
      if (!rows[0]) throw new Error('no healthy instance with a weight above 0 to place the user on');
      const owner = toOwner(rows[0]);
      await notifyControl(client, { kind: 'placed', userId, epoch: owner.epoch });
      return owner;
    });
  }

  /**
   * The end of a move: the owner becomes `to` and the epoch rises by one, in one statement that
   * compares the owner and the epoch, so a stale or repeated flip changes nothing and raises
   * ShardConflictError naming the row as it is. Every instance and the HAProxy map sync hear
   * `moved` at commit.
   */
  async flip(userId: string, from: string, to: string, epoch: number): Promise<ShardOwner> {
    return inTransaction(this.pool, async (client) => {
      const { rows } = await client.query<OwnerRow>(
        `UPDATE user_shard SET shard = $3, epoch = epoch + 1, state = 'active'
         WHERE user_id = $1 AND shard = $2 AND epoch = $4 RETURNING shard, epoch, state`,
        [userId, from, to, epoch],
      );
      if (!rows[0]) {
        const found = await this.ownerVia(client, userId);
        throw new ShardConflictError(`${userId} is not on ${from} at epoch ${epoch}: user_shard has ${describeRow(found)}`, found);
      }
      const owner = toOwner(rows[0]);
      await notifyControl(client, { kind: 'moved', userId, epoch: owner.epoch });
      return owner;
    });
  }

  /** Every placement, for a replica's reload and the map sync. */
  async all(): Promise<Map<string, ShardOwner>> {
    const { rows } = await this.pool.query<OwnerRow & { user_id: string }>('SELECT user_id, shard, epoch, state FROM user_shard');
    return new Map(rows.map((row) => [row.user_id, toOwner(row)]));
  }

  /** An instance announces itself at start; a weight given again replaces the stored one. */
  async register(instance: { id: string; url: string; weight: number | null }): Promise<void> {
    await this.pool.query(
      `INSERT INTO instance (id, url, weight, healthy) VALUES ($1, $2, coalesce($3, 1), true)
       ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, healthy = true, weight = coalesce($3, instance.weight)`,
      [instance.id, instance.url, instance.weight],
    );
  }

  /** Marked at a clean stop (and by an operator): no new user is placed there. */
  async setHealthy(id: string, healthy: boolean): Promise<void> {
    await this.pool.query('UPDATE instance SET healthy = $2 WHERE id = $1', [id, healthy]);
  }

  async instance(id: string): Promise<InstanceInfo | null> {
    const { rows } = await this.pool.query<InstanceInfo>('SELECT id, url FROM instance WHERE id = $1', [id]);
    return rows[0] ?? null;
  }

  async instances(): Promise<InstanceRow[]> {
    const { rows } = await this.pool.query<InstanceRow>('SELECT id, url, weight, healthy FROM instance ORDER BY id');
    return rows;
  }
}
