import { readFileSync } from 'node:fs';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import { MoveError, ShardConflictError, type InstanceInfo, type ShardDirectoryPort, type ShardOwner, type ShardState } from './ports.js';

/** The directory as one JSON document: `instance` rows and `user_shard` rows. */
export interface DirectoryDocument {
  instances: Record<string, { url: string; weight?: number }>;
  users: Record<string, ShardOwner>;
}

/**
 * The shard directory in one JSON file, replaced atomically on every change: for the tests and
 * for a cluster of instances on one machine without Postgres. One writer at a time (the mover);
 * Postgres' shard-directory.ts is the one for several.
 */
export class FileShardDirectory implements ShardDirectoryPort {
  constructor(readonly path: string) {}

  read(): DirectoryDocument {
    try {
      return JSON.parse(readFileSync(this.path, 'utf8')) as DirectoryDocument;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { instances: {}, users: {} };
      throw new MoveError(`the shard directory ${this.path} cannot be read: ${(error as Error).message}`);
    }
  }

  private write(document: DirectoryDocument): void {
    atomicWriteFileSync(this.path, `${JSON.stringify(document, null, 2)}\n`);
  }

  async owner(userId: string): Promise<ShardOwner | null> {
    return this.read().users[userId] ?? null;
  }

  async instance(id: string): Promise<InstanceInfo | null> {
    const row = this.read().instances[id];
    return row ? { id, url: row.url } : null;
  }

  async instances(): Promise<InstanceInfo[]> {
    return Object.entries(this.read().instances).map(([id, row]) => ({ id, url: row.url }));
  }

  /** Register an instance (tests and setup). */
  addInstance(id: string, url: string): void {
    const document = this.read();
    document.instances[id] = { url };
    this.write(document);
  }

  /** Put a user on an instance at epoch 1 (what `place` does on Postgres). */
  place(userId: string, shard: string): ShardOwner {
    const document = this.read();
    const row: ShardOwner = document.users[userId] ?? { shard, epoch: 1, state: 'active' };
    document.users[userId] = row;
    this.write(document);
    return row;
  }

  async setState(userId: string, state: ShardState, epoch: number): Promise<ShardOwner> {
    const document = this.read();
    const row = document.users[userId];
    if (!row || row.epoch !== epoch) throw new ShardConflictError(`the owner of ${userId} is no longer at epoch ${epoch}`, row ?? null);
    document.users[userId] = { ...row, state };
    this.write(document);
    return document.users[userId]!;
  }

  async flip(userId: string, from: string, to: string, epoch: number): Promise<ShardOwner> {
    const document = this.read();
    const row = document.users[userId];
    if (!row || row.shard !== from || row.epoch !== epoch) {
      throw new ShardConflictError(`${userId} is not on ${from} at epoch ${epoch} (the directory says ${row ? `${row.shard} at ${row.epoch}` : 'nothing'})`, row ?? null);
    }
    document.users[userId] = { shard: to, epoch: epoch + 1, state: 'active' };
    this.write(document);
    return document.users[userId]!;
  }
}
