import { AuditLogTable } from '@/components/audit/audit-log-table';
import { TitledSection } from '@/components/ui/titled-section';
import { AUDIT_ACTIONS } from '@/server/audit/audit-access';
import { getServerCaller } from '@/trpc/server';

/** Settings' "Your activity": the caller's own audit entries (DESIGN §17), sign-ins aimed at their account included. */
export async function ActivitySection() {
  const initial = await (await getServerCaller()).audit.list({ mine: true });
  return (
    <TitledSection id="activity-title" title="Your activity" className="space-y-4">
      <AuditLogTable initial={initial} actions={AUDIT_ACTIONS} mine caption="Your activity" />
    </TitledSection>
  );
}
