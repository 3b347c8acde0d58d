import type { InstanceRow, ShardDirectory, ShardOwner } from './shard-directory.js';

export type OwnershipVerdict =
  | { kind: 'mine'; owner: ShardOwner }
  /** answer 421 naming the owner */
  | { kind: 'elsewhere'; owner: ShardOwner; url: string | null }
  /** no placement (yet): a user made a moment ago on another instance, before its NOTIFY arrived */
  | { kind: 'unknown' };

/**
 * This instance's copy of `user_shard` and `instance`, kept fresh by the control channel, so the
 * check on every request is a map lookup. The route HAProxy took is only a hint: this decides.
 */
export class OwnershipReplica {
  private owners = new Map<string, ShardOwner>();
  private urls = new Map<string, string>();

  constructor(
    readonly instanceId: string,
    private readonly directory: ShardDirectory,
  ) {}

  async reload(): Promise<void> {
    const [owners, instances] = await Promise.all([this.directory.all(), this.directory.instances()]);
    this.owners = owners;
    this.urls = new Map(instances.map((row: InstanceRow) => [row.id, row.url]));
  }

  /** After `placed` / `moved` / `frozen`: the one row again; an older epoch never overwrites a newer one. */
  async refresh(userId: string): Promise<void> {
    const owner = await this.directory.owner(userId);
    if (!owner) {
      this.owners.delete(userId);
      return;
    }
    const known = this.owners.get(userId);
    if (known && known.epoch > owner.epoch) return;
    this.owners.set(userId, owner);
    if (!this.urls.has(owner.shard)) {
      const instances = await this.directory.instances();
      this.urls = new Map(instances.map((row) => [row.id, row.url]));
    }
  }

  /** Set by this instance itself after it placed a user, so its own next request needs no round trip. */
  remember(userId: string, owner: ShardOwner): void {
    const known = this.owners.get(userId);
    if (!known || known.epoch <= owner.epoch) this.owners.set(userId, owner);
  }

  ownerOf(userId: string): ShardOwner | null {
    return this.owners.get(userId) ?? null;
  }

  urlOf(instanceId: string): string | null {
    return this.urls.get(instanceId) ?? null;
  }

  check(userId: string): OwnershipVerdict {
    const owner = this.owners.get(userId);
    if (!owner) return { kind: 'unknown' };
    if (owner.shard === this.instanceId) return { kind: 'mine', owner };
    return { kind: 'elsewhere', owner, url: this.urls.get(owner.shard) ?? null };
  }

  /** users per instance, for status and tests */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const owner of this.owners.values()) counts.set(owner.shard, (counts.get(owner.shard) ?? 0) + 1);
    return counts;
  }
}
