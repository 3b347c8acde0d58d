/**
 * What the move engine needs from the rest of the cluster, as small interfaces: the shard
 * directory (Postgres' `user_shard` and `instance` tables in cluster mode, a JSON file in tests
 * and on one machine) and each instance's control endpoint (`/api/cluster/*`).
 */

export { MoveError, ShardConflictError, type InstanceInfo, type ShardDirectoryPort, type ShardOwner, type ShardState } from '../shard-directory-port.js';

/** The source's live-event state at the freeze: the target continues its ids from here. */
export interface EventHandoff {
  boot: string;
  seq: number;
  /** the source's buffered events, oldest first, so a client behind by a few still catches up */
  events: { id: string; type: string; data: unknown }[];
}

/** Every git repository of the user (path relative to the data directory) → ref → commit. */
export type RepoHeads = Record<string, Record<string, string>>;

export interface FreezeResult {
  handoff: EventHandoff;
  /** the heads after every pending write was flushed: the target must show exactly these */
  heads: RepoHeads;
}

export interface VerifyReport {
  ok: boolean;
  sessions: number;
  repos: number;
  /** the repositories fsck read (the others were clean at the pre-copy and untouched since) */
  fscked: number;
  /** one line per problem: a registry row unlike its meta.json, a fsck error, a head that differs */
  problems: string[];
}

/** The target's fsck of its live pre-copy: which repositories were clean then. */
export interface PrecheckReport {
  repos: number;
  /** keys as in RepoHeads */
  clean: string[];
}

/** What the target's copy must show, and what its verify may leave out. */
export interface VerifyExpectation {
  heads: RepoHeads;
  sourceDataDir: string;
  /**
   * Repositories not to fsck again: clean at the pre-copy check, and no file of theirs written
   * since (engine.ts says why that is enough). Absent: fsck them all.
   */
  fsckSkip?: string[];
}

/** The owner a released user's requests are sent to (421). */
export interface NewOwner {
  id: string;
  url: string;
  epoch: number;
}

/** One instance's control endpoint, as the mover calls it. */
export interface InstanceControlPort {
  /** this instance's id and the rsync location of its data directory (a path, or host:path) */
  describe(): Promise<{ id: string; dataDir: string }>;
  /** Refuse the user's writes (503), drain what is running, close their streams; idempotent. */
  freeze(userId: string, moveId: string): Promise<FreezeResult>;
  unfreeze(userId: string): Promise<void>;
  /**
   * On the target, after the live pre-copy: fsck the copy and say which repositories were clean.
   * A problem is no failure here (a live copy can hold a ref copied before its objects).
   */
  precheck(userId: string): Promise<PrecheckReport>;
  /** On the target: rebase the copied paths from `sourceDataDir`, then check the copy. */
  verify(userId: string, expected: VerifyExpectation): Promise<VerifyReport>;
  /** On the target: take over the user's event ids. */
  adopt(userId: string, handoff: EventHandoff): Promise<void>;
  /** On the source after the flip: the user's requests answer 421 naming `owner`; their store is closed. */
  release(userId: string, owner: NewOwner): Promise<void>;
  /** Remove the user's data here: refused while this instance serves the user. */
  discard(userId: string): Promise<void>;
}
