import { z } from 'zod';
import { actorName, auditFilterFields, auditFilterFor, sinceNotAfterUntil } from '@/server/audit/audit-access';
import { getAuditLog } from '@/server/audit/audit-runtime';
import { createTRPCRouter, protectedProcedure } from '../trpc';

const listInput = auditFilterFields
  .extend({ limit: z.number().int().min(1).max(500).default(50), before: z.number().int().min(0).optional() })
  .strict()
  .refine(...sinceNotAfterUntil);

/** The audit log (DESIGN §17). */
export const auditRouter = createTRPCRouter({
  /**
   * `{actor?, action?, result?, since?, until?, mine?, limit?, before?}` → `{scope, entries, next}`,
   * newest first; `next` is the `before` of the older page. A signed-in admin reads everyone's
   * (`mine` for their own), anyone else their own.
   */
  list: protectedProcedure.input(listInput.optional()).query(async ({ ctx, input }) => {
    const { limit = 50, before, ...filters } = input ?? {};
    const { scope, ...filter } = auditFilterFor(ctx, filters);
    const page = await getAuditLog().list({ ...filter, limit, before });
    return { scope, entries: page.entries.map((entry) => ({ ...entry, actorName: actorName(entry.actor) })), next: page.next };
  }),
});
