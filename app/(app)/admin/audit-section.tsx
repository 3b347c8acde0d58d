import { AuditLogTable } from '@/components/audit/audit-log-table';
import { TitledSection } from '@/components/ui/titled-section';
import { AUDIT_ACTIONS } from '@/server/audit/audit-access';
import { getServerCaller } from '@/trpc/server';

/** The Admin page's audit log (DESIGN §17): everyone's entries, filterable, downloadable as CSV. */
export async function AdminAuditSection({ users }: { users: { id: string; email: string }[] }) {
  const initial = await (await getServerCaller()).audit.list();
  return (
    <TitledSection id="audit-title" title="Audit log" className="space-y-4">
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Sign-ins, tokens, share links, exports, deletions, admin actions and moves: who, when, from which address, and whether it was done.
      </p>
      <AuditLogTable initial={initial} actions={AUDIT_ACTIONS} users={users} mine={false} caption="Audit log" />
    </TitledSection>
  );
}
