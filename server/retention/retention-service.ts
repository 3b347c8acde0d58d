import { join } from 'node:path';
import {
  effectiveRetention,
  readInstanceRetention,
  readUserRetention,
  sweepRetention,
  writeInstanceRetention,
  writeUserRetention,
  type EffectiveRetention,
  type RetentionPolicy,
  type SweepResult,
  isRetentionOff,
} from '@/lib/retention/index';
import { enterUserWrite } from '@/server/cluster/user-gate';
import { getAuthStore, getClusterNode, getDataDir, getUserStore, isUserStoreOpen } from '@/server/runtime';

const authDir = () => join(getDataDir(), 'auth');

export interface RetentionSettings {
  /** the user's own choice, or null: the instance default applies */
  own: RetentionPolicy | null;
  /** what the admin set for everyone (off unless set) */
  instance: RetentionPolicy;
  effective: EffectiveRetention;
}

export function retentionSettings(userId: string): RetentionSettings {
  const own = readUserRetention(getDataDir(), userId);
  const instance = readInstanceRetention(authDir()) ?? {};
  return { own, instance, effective: effectiveRetention(own, instance) };
}

export function setOwnRetention(userId: string, own: RetentionPolicy | null): RetentionSettings {
  writeUserRetention(getDataDir(), userId, own);
  return retentionSettings(userId);
}

export function setInstanceRetention(policy: RetentionPolicy): RetentionPolicy {
  writeInstanceRetention(authDir(), policy);
  return policy;
}

export interface SweepSummary {
  /** users whose retention is on and who were swept */
  users: number;
  archived: number;
  trashed: number;
  purged: number;
  /** users skipped: frozen or moved away by a move, or their store failed to open */
  skipped: number;
}

/** One sweep at a time in this process: the hourly one and the admin's button never interleave. */
let running: Promise<unknown> = Promise.resolve();

async function sweepUser(userId: string, policy: RetentionPolicy, asOfSeconds: number, nowSeconds: number): Promise<SweepResult | null> {
  // The sweep writes like any writer: through the move gate.
  const entry = enterUserWrite(userId);
  if (!entry.ok) return null;
  try {
    return await sweepRetention(await getUserStore(userId), policy, { now: asOfSeconds, purgeNow: nowSeconds });
  } finally {
    entry.leave();
  }
}

/**
 * Retention over every user whose policy is on (DESIGN §17). `asOf` (ms, admins only): the limits
 * are measured from that moment, so an admin (and the e2e test) sees what a later sweep would move;
 * purging the trash always follows the real clock. In cluster mode only the users this instance
 * serves now (their store is open here).
 */
export function sweepEveryUser(asOf?: number): Promise<SweepSummary> {
  const sweep = running.then(async () => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const asOfSeconds = asOf === undefined ? nowSeconds : Math.floor(asOf / 1000);
    const summary: SweepSummary = { users: 0, archived: 0, trashed: 0, purged: 0, skipped: 0 };
    const clustered = getClusterNode() !== null;
    for (const user of getAuthStore().users.list()) {
      if (clustered && !isUserStoreOpen(user.id)) continue;
      const { policy } = retentionSettings(user.id).effective;
      if (isRetentionOff(policy)) continue;
      let result: SweepResult | null;
      try {
        result = await sweepUser(user.id, policy, asOfSeconds, nowSeconds);
      } catch (error) {
        console.error(`[retention] the sweep of user ${user.id} failed:`, error);
        result = null;
      }
      if (!result) {
        summary.skipped += 1;
        continue;
      }
      summary.users += 1;
      summary.archived += result.archived.length;
      summary.trashed += result.trashed.length;
      summary.purged += result.purged.length;
    }
    return summary;
  });
  running = sweep.catch(() => undefined);
  return sweep;
}
