import { rmSync } from 'node:fs';
import { MoveError, type EventHandoff, type FreezeResult, type InstanceControlPort, type NewOwner, type PrecheckReport, type VerifyExpectation, type VerifyReport } from './ports.js';
import { rebaseUserPaths } from './rebase.js';
import { headsOf, userRoots } from './repos.js';
import type { UserGate } from './user-gate.js';
import { fsckUserRepos, verifyUserCopy } from './verify.js';

/** What the instance's runtime (server/runtime.ts) does for a move; tests give a small one. */
export interface InstanceRuntimePort {
  id: string;
  /** the data directory on this machine */
  dataDir: string;
  /** how the mover's rsync reaches it: the same path on one machine, host:path across machines */
  rsyncLocation: string;
  gate: UserGate;
  /** the user's store durable and idle: registry flushed, titles and repacks finished */
  settleUser(userId: string): Promise<void>;
  /** end the user's open event streams (with a reconnect hint) and hand over their event ids */
  closeStreams(userId: string): EventHandoff;
  /** the user's event ids continue from the handoff here */
  adoptEvents(userId: string, handoff: EventHandoff): void;
  forgetEvents(userId: string): void;
  /** close and forget the user's store and search index (the next request reopens them) */
  closeUser(userId: string): Promise<void>;
  /** whether the user's store is open here */
  servesUser(userId: string): boolean;
  allowedRoots(userId: string): readonly string[];
}

/** The path part of an rsync location (host:path or a plain path). */
export function pathOfLocation(location: string): string {
  const match = /^[^/:]+:(\/.*)$/.exec(location);
  return match ? match[1]! : location;
}

/** One instance's side of a move, behind its control endpoint. */
export class InstanceControl implements InstanceControlPort {
  constructor(private readonly runtime: InstanceRuntimePort) {}

  async describe(): Promise<{ id: string; dataDir: string }> {
    return { id: this.runtime.id, dataDir: this.runtime.rsyncLocation };
  }

  async freeze(userId: string, moveId: string): Promise<FreezeResult> {
    if (this.runtime.gate.availability(userId).kind === 'moved') throw new MoveError(`${userId} has already moved away from ${this.runtime.id}`, 'conflict');
    await this.runtime.gate.freeze(userId, moveId);
    await this.runtime.settleUser(userId);
    const handoff = this.runtime.closeStreams(userId);
    return { handoff, heads: await headsOf(this.runtime.dataDir, userId) };
  }

  async unfreeze(userId: string): Promise<void> {
    this.runtime.gate.unfreeze(userId);
  }

  async precheck(userId: string): Promise<PrecheckReport> {
    this.refuseServed(userId);
    const { repos, problems } = await fsckUserRepos(this.runtime.dataDir, userId);
    return { repos: repos.length, clean: repos.filter((repo) => !problems.has(repo)) };
  }

  async verify(userId: string, expected: VerifyExpectation): Promise<VerifyReport> {
    this.refuseServed(userId);
    rebaseUserPaths(pathOfLocation(expected.sourceDataDir), this.runtime.dataDir, userId);
    return verifyUserCopy(this.runtime.dataDir, userId, expected.heads, this.runtime.allowedRoots(userId), { fsckSkip: expected.fsckSkip });
  }

  private refuseServed(userId: string): void {
    if (this.runtime.gate.availability(userId).kind === 'serve' && this.runtime.servesUser(userId)) {
      throw new MoveError(`${this.runtime.id} already serves ${userId}: it cannot be the target of a copy`, 'conflict');
    }
  }

  async adopt(userId: string, handoff: EventHandoff): Promise<void> {
    // A user moved back here: the old marker and any store left open from before go.
    this.runtime.gate.clearMoved(userId);
    this.runtime.gate.unfreeze(userId);
    await this.runtime.closeUser(userId);
    this.runtime.adoptEvents(userId, handoff);
  }

  async release(userId: string, owner: NewOwner): Promise<void> {
    this.runtime.gate.markMoved(userId, owner);
    this.runtime.closeStreams(userId);
    await this.runtime.closeUser(userId);
  }

  async discard(userId: string): Promise<void> {
    const availability = this.runtime.gate.availability(userId);
    if (availability.kind === 'serve' && this.runtime.servesUser(userId)) {
      throw new MoveError(`${this.runtime.id} serves ${userId}: its data is not removed`, 'conflict');
    }
    if (availability.kind === 'frozen') throw new MoveError(`${userId} is frozen on ${this.runtime.id}: unfreeze or finish the move first`, 'conflict');
    await this.runtime.closeUser(userId);
    this.runtime.forgetEvents(userId);
    const roots = userRoots(this.runtime.dataDir, userId);
    rmSync(roots.users, { recursive: true, force: true });
    rmSync(roots.workspaces, { recursive: true, force: true });
  }
}
