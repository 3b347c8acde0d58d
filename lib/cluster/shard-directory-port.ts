/**
 * The shard directory as the move engine sees it, and the errors a move raises. Below both the
 * Postgres directory (`shard-directory.ts`) and the move engine (`move/`), so neither imports the
 * other to share them (`move/ports.ts` re-exports them with the engine's other ports).
 */

/** `user_shard.state`: 'moving' while a copy runs, 'frozen' from the freeze to the flip. */
export type ShardState = 'active' | 'moving' | 'frozen';

/** One `user_shard` row, without its user id. */
export interface ShardOwner {
  shard: string;
  epoch: number;
  state: ShardState;
}

/** One `instance` row, as far as a move needs it. */
export interface InstanceInfo {
  id: string;
  url: string;
}

/**
 * The shard directory (lib/cluster/shard-directory.ts implements it on Postgres). Every change
 * is a compare-and-set on the epoch, so a mover that lost a race (or was resumed twice) changes
 * nothing and learns it from the error.
 */
export interface ShardDirectoryPort {
  owner(userId: string): Promise<ShardOwner | null>;
  /** The state of the user's row, only while it is still at `epoch` (else ShardConflictError); the row after. */
  setState(userId: string, state: ShardState, epoch: number): Promise<ShardOwner>;
  /**
   * `from` at `epoch` → `to` at `epoch + 1`, state 'active', in one statement (and NOTIFY
   * `entity_memory_control` {kind:'moved'}); refused (ShardConflictError) when the row is anything else.
   */
  flip(userId: string, from: string, to: string, epoch: number): Promise<ShardOwner>;
  instance(id: string): Promise<InstanceInfo | null>;
  /** every `instance` row (the Admin page's target chooser) */
  instances(): Promise<InstanceInfo[]>;
}

export class MoveError extends Error {
  constructor(
    message: string,
    readonly code: 'bad_input' | 'conflict' | 'failed' = 'failed',
  ) {
    super(message);
    this.name = 'MoveError';
  }
}

/**
 * The shard directory refused a compare-and-set: the user's row is no longer what the mover
 * expected (another mover flipped it, or a resume runs a step twice). `found` is the row as it is.
 */
export class ShardConflictError extends MoveError {
  constructor(
    message: string,
    readonly found: ShardOwner | null,
  ) {
    super(message, 'conflict');
    this.name = 'ShardConflictError';
  }
}
