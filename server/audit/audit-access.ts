/** Who reads which entries of the audit log (DESIGN §17): the procedure and the CSV download ask the same question. */
import { z } from 'zod';
import { AUDIT_ACTIONS, AUDIT_RESULTS, type AuditFilter } from '@/lib/audit/index';
import { AuthError } from '@/lib/auth/index';
import type { AuthVia } from '@/server/auth/request-auth';
import { getAuthStore } from '@/server/runtime';
import { userIdInput } from '@/server/api/schemas';

const time = z.number().int().min(0).max(8.64e15);

/** The filters, as `audit.list` takes them (with its paging) and the CSV route reads them from its query. */
export const auditFilterFields = z.object({
  actor: userIdInput.optional(),
  action: z.enum(AUDIT_ACTIONS, { message: `action must be one of ${AUDIT_ACTIONS.join(', ')}` }).optional(),
  result: z.enum(AUDIT_RESULTS, { message: 'result must be success or failure' }).optional(),
  since: time.optional(),
  until: time.optional(),
  /** an admin's own entries only (Settings' "Your activity") */
  mine: z.boolean().optional(),
});

export const sinceNotAfterUntil = [
  (input: { since?: number; until?: number }) => input.since === undefined || input.until === undefined || input.since <= input.until,
  'since must not be after until',
] as const;

export const auditFilterInput = auditFilterFields.strict().refine(...sinceNotAfterUntil);

export type AuditFilterInput = z.infer<typeof auditFilterFields>;

/**
 * An admin signed in reads everyone's entries; anyone else (an admin's API token too, as for every
 * admin procedure) their own, and asking for another user's is refused rather than answered empty.
 */
export function auditFilterFor(caller: { user: { id: string; admin: boolean }; via: AuthVia }, input: AuditFilterInput): AuditFilter & { scope: 'all' | 'own' } {
  const { mine, ...filter } = input;
  if (caller.user.admin && caller.via !== 'token' && !mine) return { ...filter, scope: 'all' };
  if (filter.actor !== undefined && filter.actor !== caller.user.id) throw new AuthError('FORBIDDEN', "only an admin reads other users' activity");
  return { ...filter, actor: caller.user.id, scope: 'own' };
}

/** How the table and the CSV name an actor: the user's email, or the id of a user since gone. */
export function actorName(actor: string | null): string {
  if (actor === null) return '';
  return getAuthStore().users.get(actor)?.email ?? actor;
}
export { AUDIT_ACTIONS } from '@/lib/audit/index';
