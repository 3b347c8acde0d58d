/**
 * The audit log of this instance (DESIGN §17), and the one function every call site uses to
 * write it: `data/auth/audit.log`, or Postgres's `audit` in cluster mode. Call sites are at the
 * server layer (procedures, routes, sign-in), one line each.
 */
import { join } from 'node:path';
import { AUDIT_LOG_FILE, FileAuditLog, type AuditAction, type AuditLog, type AuditResult } from '@/lib/audit/index';
import { PgAuditLog } from '@/lib/cluster/audit-log';
import { getClusterNode, getDataDir } from '@/server/runtime';

// On globalThis: serve.ts and the built Next routes load this module separately; one writer per process keeps batches whole.
const KEY = Symbol.for('entity-memory.audit-log');
const holder = globalThis as typeof globalThis & { [KEY]?: AuditLog };

export function getAuditLog(): AuditLog {
  if (!holder[KEY]) {
    const cluster = getClusterNode();
    holder[KEY] = cluster ? new PgAuditLog(cluster.pool) : new FileAuditLog(join(getDataDir(), 'auth', AUDIT_LOG_FILE));
  }
  return holder[KEY];
}

/** Who acted and from where: a procedure's ctx, or a route's caller with the request's address. */
export interface AuditActor {
  user: { id: string } | null;
  ip: string | null;
}

/**
 * Writes one entry and waits until it is durable. A log that cannot be written (a full disk, the
 * database gone) does not undo or refuse what was already done: the entry goes to the server log.
 */
export async function recordAudit(who: AuditActor, action: AuditAction, target: string, result: AuditResult, actorId = who.user?.id ?? null): Promise<void> {
  const entry = { at: Date.now(), actor: actorId, ip: who.ip, action, target, result };
  try {
    await getAuditLog().append(entry);
  } catch (error) {
    console.error('[audit] the entry could not be written:', JSON.stringify(entry), error);
  }
}

/**
 * Runs `work` and records it: success with `target` (or what it makes of the result, e.g. a new
 * token's id), failure when it throws (the error goes on as it was).
 */
export async function audited<T>(who: AuditActor, action: AuditAction, target: string | ((result: T) => string), work: () => Promise<T> | T): Promise<T> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    await recordAudit(who, action, typeof target === 'string' ? target : '', 'failure');
    throw error;
  }
  await recordAudit(who, action, typeof target === 'string' ? target : target(result), 'success');
  return result;
}
