import { join } from 'node:path';
import type { UserAvailability } from '@/lib/cluster/move/index';
import { getUserGate } from '@/server/runtime';

// The gate is a field of the runtime (one per process, on globalThis), so runtime.ts needs nothing from here.
export { getUserGate };

/**
 * The hook every request path (and the core branch's ownership check) asks: may this instance
 * serve the user now? `moved` answers 421 naming the owner, `frozen` refuses writes with 503.
 */
export function userAvailability(userId: string): UserAvailability {
  return getUserGate().availability(userId);
}

/** The body and headers of a 421 for a user who lives on another instance now. */
export function misdirectedAnswer(owner: { id: string; url: string; epoch: number }): { status: 421; headers: Record<string, string>; body: { error: string; owner: typeof owner } } {
  return {
    status: 421,
    headers: { 'x-entity-memory-owner': owner.id, ...(owner.url ? { 'x-entity-memory-owner-url': owner.url } : {}) },
    body: { error: `this account has moved to instance ${owner.id}${owner.url ? ` (${owner.url})` : ''}: send the request there`, owner },
  };
}

export const MOVES_DIR = (dataDir: string) => join(dataDir, 'cluster', 'moves');
