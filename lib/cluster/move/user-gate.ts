import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../../fs/atomic-write.js';
import type { NewOwner } from './ports.js';

/** Seconds a frozen user's client waits before it tries again (a move's freeze is seconds long). */
export const FROZEN_RETRY_AFTER_SECONDS = 2;

export type UserAvailability =
  | { kind: 'serve' }
  /** a move is copying the user's last writes: writes answer 503 with Retry-After */
  | { kind: 'frozen'; moveId: string; retryAfterSeconds: number }
  /** the user lives on another instance now: every request answers 421 naming it */
  | { kind: 'moved'; owner: NewOwner };

export class UserFrozenError extends Error {
  readonly retryAfterSeconds = FROZEN_RETRY_AFTER_SECONDS;
  constructor() {
    super('this account is being moved to another server: writes resume in a few seconds');
    this.name = 'UserFrozenError';
  }
}

/**
 * Which of this instance's users are frozen or moved away, and the writes running for each.
 * Markers live on disk (`<data>/cluster/frozen/<id>.json`, `<data>/cluster/moved/<id>.json`), so a
 * source killed while frozen comes back frozen and never takes a write the final copy would miss.
 */
export class UserGate {
  private readonly frozen = new Map<string, string>();
  private readonly moved = new Map<string, NewOwner>();
  private readonly running = new Map<string, number>();
  private readonly drained = new Map<string, (() => void)[]>();
  private readonly frozenDir: string;
  private readonly movedDir: string;

  constructor(dataDir: string) {
    this.frozenDir = join(dataDir, 'cluster', 'frozen');
    this.movedDir = join(dataDir, 'cluster', 'moved');
    for (const [dir, apply] of [
      [this.frozenDir, (id: string, value: { moveId: string }) => this.frozen.set(id, value.moveId)],
      [this.movedDir, (id: string, value: NewOwner) => this.moved.set(id, value)],
    ] as const) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const name of readdirSync(dir)) {
        const id = /^([0-9a-f]{16})\.json$/.exec(name)?.[1];
        if (!id) continue;
        try {
          apply(id, JSON.parse(readFileSync(join(dir, name), 'utf8')));
        } catch {
          // a marker cut short by a crash before its rename cannot exist (atomic writes); skip junk
        }
      }
    }
  }

  availability(userId: string): UserAvailability {
    const owner = this.moved.get(userId);
    if (owner) return { kind: 'moved', owner };
    const moveId = this.frozen.get(userId);
    if (moveId) return { kind: 'frozen', moveId, retryAfterSeconds: FROZEN_RETRY_AFTER_SECONDS };
    return { kind: 'serve' };
  }

  /** A write of the user begins: refused while frozen; the returned function ends it. */
  enterWrite(userId: string): () => void {
    if (this.frozen.has(userId) || this.moved.has(userId)) throw new UserFrozenError();
    return this.count(userId);
  }

  /**
   * A write that outlives the request that began it (a chat turn still streaming after chat.send
   * returned), counted from now until the returned function runs. Not refused while frozen: it is
   * begun inside that request's own write, which a freeze is still waiting for, so it cannot land
   * after the final copy. Throws when no write of the user is running (a caller outside the gate).
   */
  continueWrite(userId: string): () => void {
    if (!this.running.get(userId)) throw new Error(`continueWrite(${userId}) outside a write of that user`);
    return this.count(userId);
  }

  private count(userId: string): () => void {
    this.running.set(userId, (this.running.get(userId) ?? 0) + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const count = (this.running.get(userId) ?? 1) - 1;
      if (count > 0) {
        this.running.set(userId, count);
        return;
      }
      this.running.delete(userId);
      for (const wake of this.drained.get(userId)?.splice(0) ?? []) wake();
    };
  }

  runningWrites(userId: string): number {
    return this.running.get(userId) ?? 0;
  }

  /** Refuse new writes from now on (durably), then wait until the running ones have finished. */
  async freeze(userId: string, moveId: string): Promise<void> {
    if (this.frozen.get(userId) !== moveId) {
      atomicWriteFileSync(join(this.frozenDir, `${userId}.json`), JSON.stringify({ moveId, at: Date.now() }));
      this.frozen.set(userId, moveId);
    }
    if (!this.running.get(userId)) return;
    await new Promise<void>((resolve) => {
      const waiting = this.drained.get(userId) ?? [];
      waiting.push(resolve);
      this.drained.set(userId, waiting);
    });
  }

  unfreeze(userId: string): void {
    rmSync(join(this.frozenDir, `${userId}.json`), { force: true });
    this.frozen.delete(userId);
  }

  /** The user is someone else's now (the flip is done): answer 421 naming the owner, for good. */
  markMoved(userId: string, owner: NewOwner): void {
    atomicWriteFileSync(join(this.movedDir, `${userId}.json`), JSON.stringify(owner));
    this.moved.set(userId, owner);
    this.unfreeze(userId);
  }

  /** The user is ours again (moved back here): forget an old move away. */
  clearMoved(userId: string): void {
    rmSync(join(this.movedDir, `${userId}.json`), { force: true });
    this.moved.delete(userId);
  }
}
