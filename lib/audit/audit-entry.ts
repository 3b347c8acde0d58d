import { CodedError } from '../errors/coded-error.js';

/**
 * What the audit log records (DESIGN §17): one line per act, who (`actor`: a user id, or the
 * email typed at a failed sign-in of no known user), from where (`ip`, as server/auth/client-ip.ts
 * reads it), what (`action` on `target`) and whether it was done.
 */
export interface AuditEntry {
  /** milliseconds since 1970, as the API speaks */
  at: number;
  actor: string | null;
  ip: string | null;
  action: AuditAction;
  target: string;
  result: AuditResult;
}

/** An entry as a page lists it: `id` names its place in the log (a byte offset, or the table's row id). */
export interface ListedAuditEntry extends AuditEntry {
  id: string;
}

export const AUDIT_RESULTS = ['success', 'failure'] as const;
export type AuditResult = (typeof AUDIT_RESULTS)[number];

/** Every action written; the Admin page's filter offers these. */
export const AUDIT_ACTIONS = [
  'sign-in',
  'sign-out',
  'token.create',
  'token.revoke',
  'share.create',
  'share.update',
  'share.revoke',
  'export',
  'session.delete',
  'admin.createUser',
  'admin.setDisabled',
  'admin.resetPassword',
  'admin.setSignup',
  'admin.addProjectRoot',
  'admin.removeProjectRoot',
  'admin.setInstanceKey',
  'admin.setInstanceKeyUser',
  'admin.setPrice',
  'move.start',
  'move.continue',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditFilter {
  actor?: string;
  action?: AuditAction;
  result?: AuditResult;
  /** inclusive, ms */
  since?: number;
  /** inclusive, ms */
  until?: number;
}

export interface AuditQuery extends AuditFilter {
  /** at most this many entries (1–500) */
  limit: number;
  /** a page's `next`: only entries older than that one */
  before?: number;
}

export interface AuditPage {
  /** newest first */
  entries: ListedAuditEntry[];
  /** `before` of the next (older) page; null when there is none */
  next: number | null;
}

/** One instance's log: the file of lib/audit, or Postgres's `audit` table in cluster mode (lib/cluster/audit-log.ts). */
export interface AuditLog {
  /** Resolves once the entry is durable (fsynced, or committed). */
  append(entry: AuditEntry): Promise<void>;
  list(query: AuditQuery): Promise<AuditPage>;
  close(): Promise<void>;
}

export class AuditError extends CodedError<'BAD_REQUEST'> {}

const LIMITS = { actor: 254, ip: 64, target: 500 } as const;

/** Fields cut to their limits, so one entry stays one short line whatever a caller passes. */
export function boundedEntry(entry: AuditEntry): AuditEntry {
  return {
    at: entry.at,
    actor: entry.actor === null ? null : entry.actor.slice(0, LIMITS.actor),
    ip: entry.ip === null ? null : entry.ip.slice(0, LIMITS.ip),
    action: entry.action,
    target: entry.target.slice(0, LIMITS.target),
    result: entry.result,
  };
}

export function matchesFilter(entry: AuditEntry, filter: AuditFilter): boolean {
  if (filter.actor !== undefined && entry.actor !== filter.actor) return false;
  if (filter.action !== undefined && entry.action !== filter.action) return false;
  if (filter.result !== undefined && entry.result !== filter.result) return false;
  if (filter.since !== undefined && entry.at < filter.since) return false;
  if (filter.until !== undefined && entry.at > filter.until) return false;
  return true;
}

const isNullableString = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** A line of the file back into an entry; null for anything else (a torn line after a crash, a hand edit). */
export function parseAuditLine(line: string): AuditEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { at, actor, ip, action, target, result } = value as Record<string, unknown>;
  if (typeof at !== 'number' || !isNullableString(actor) || !isNullableString(ip) || typeof target !== 'string') return null;
  if (!(AUDIT_ACTIONS as readonly unknown[]).includes(action) || !(AUDIT_RESULTS as readonly unknown[]).includes(result)) return null;
  return { at, actor, ip, action: action as AuditAction, target, result: result as AuditResult };
}

/** Every entry a filter matches, newest first, page after page (the CSV download). */
export async function* allAuditEntries(log: AuditLog, filter: AuditFilter, pageSize = 500): AsyncGenerator<ListedAuditEntry> {
  let before: number | undefined;
  for (;;) {
    const page = await log.list({ ...filter, limit: pageSize, before });
    yield* page.entries;
    if (page.next === null) return;
    before = page.next;
  }
}
