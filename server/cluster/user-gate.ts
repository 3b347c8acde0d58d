import { join } from 'node:path';
import { UserFrozenError, type NewOwner, type UserAvailability } from '@/lib/cluster/move/index';
import { getUserGate } from '@/server/runtime';
import type { MisdirectedOwner } from './misdirected';

// The gate is a field of the runtime (one per process, on globalThis), so runtime.ts needs nothing from here.
export { getUserGate };

/**
 * The hook every request path (and the core branch's ownership check) asks: may this instance
 * serve the user now? `moved` answers 421 naming the owner, `frozen` refuses writes with 503.
 */
export function userAvailability(userId: string): UserAvailability {
  return getUserGate().availability(userId);
}

/** A moved-away user's new owner, as the one 421 names it (server/cluster/misdirected.ts). */
export function ownerOfMoved(owner: NewOwner): MisdirectedOwner {
  return { instance: owner.id, url: owner.url || null, epoch: owner.epoch };
}

/** Why a request of the user is not served here now. */
export type GateRefusal =
  /** the user lives on another instance: 421 naming it */
  | { kind: 'moved'; owner: MisdirectedOwner }
  /** a move is copying the user's last writes: 503 with Retry-After */
  | { kind: 'frozen'; message: string; retryAfterSeconds: number };

/** A read of the user: refused only when the user has moved away. */
export function admitRead(userId: string): GateRefusal | null {
  const availability = userAvailability(userId);
  return availability.kind === 'moved' ? { kind: 'moved', owner: ownerOfMoved(availability.owner) } : null;
}

/**
 * A write of the user, on any transport (tRPC, the plain routes, the recording proxy, a chat
 * turn): entered here, counted until `leave` runs, so a move's freeze waits for it; refused while
 * the user is frozen or moved. Hold it for as long as the write can still land in the store (a
 * proxied exchange until it is recorded, a chat turn until it is finalised).
 */
export function enterUserWrite(userId: string): { ok: true; leave: () => void } | { ok: false; refusal: GateRefusal } {
  const moved = admitRead(userId);
  if (moved) return { ok: false, refusal: moved };
  try {
    return { ok: true, leave: getUserGate().enterWrite(userId) };
  } catch (error) {
    if (!(error instanceof UserFrozenError)) throw error;
    return { ok: false, refusal: { kind: 'frozen', message: error.message, retryAfterSeconds: error.retryAfterSeconds } };
  }
}

export const MOVES_DIR = (dataDir: string) => join(dataDir, 'cluster', 'moves');
