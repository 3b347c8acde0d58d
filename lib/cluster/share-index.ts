import type { ShareIndex, ShareOwnerEntry } from '../share/index.js';
import { notifyControl } from './control-channel.js';
import type { Pool } from './db.js';

/**
 * The share-link index of a cluster (`share_link`): a link opens on whichever instance owns its
 * user now, and HAProxy's map sync routes `/s/<id>` by it. A `shares` message tells the sync at
 * once; its periodic comparison catches one that was lost.
 */
export class PgShareIndex implements ShareIndex {
  constructor(private readonly pool: Pool) {}

  async ownerOf(id: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ user_id: string }>('SELECT user_id FROM share_link WHERE id = $1', [id]);
    return rows[0]?.user_id ?? null;
  }

  async add(entries: readonly ShareOwnerEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.pool.query(
      'INSERT INTO share_link (id, user_id) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (id) DO NOTHING',
      [entries.map((entry) => entry.id), entries.map((entry) => entry.userId)],
    );
    await this.notify(entries.map((entry) => entry.userId));
  }

  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { rows } = await this.pool.query<{ user_id: string }>('DELETE FROM share_link WHERE id = ANY($1::text[]) RETURNING user_id', [[...ids]]);
    await this.notify(rows.map((row) => row.user_id));
  }

  private async notify(userIds: string[]): Promise<void> {
    for (const userId of new Set(userIds)) await notifyControl(this.pool, { kind: 'shares', userId });
  }
}
