import { notFound } from 'next/navigation';
import { CreateUserForm } from '@/components/admin/create-user-form';
import { InstanceKeysSection } from '@/components/admin/instance-keys-section';
import { ProjectRootsSection } from '@/components/admin/project-roots-section';
import { SignupSwitch } from '@/components/admin/signup-switch';
import { UserTable } from '@/components/admin/user-table';
import { UserMovesSection } from '@/components/admin/user-moves-section';
import { ModelsAdminSection } from '@/components/models/models-admin-section';
import { PricesSection } from '@/components/admin/prices-section';
import { InstanceRetentionSection } from '@/components/retention/instance-retention-section';
import { Card } from '@/components/ui/card';
import { getServerCaller, requireUser } from '@/trpc/server';
import { TitledSection } from '@/components/ui/titled-section';
import { AdminAuditSection } from './audit-section';

export const metadata = { title: 'Admin · Entity Memory' };

export default async function AdminPage() {
  const user = await requireUser();
  if (!user.admin) notFound();
  const api = await getServerCaller();
  const [users, status, roots, instanceKeys, prices] = await Promise.all([api.admin.listUsers(), api.auth.status(), api.admin.projectRoots(), api.admin.instanceKeys(), api.usage.prices()]);
  const retention = await api.retention.settings();
  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-8">
      <h1 className="text-2xl font-semibold">Admin</h1>
      <Card>
        <TitledSection id="users-title" title="Users" className="space-y-4">
          <UserTable initialUsers={users} currentUserId={user.id} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="instances-title" title="Instances">
          <UserMovesSection users={users} currentUserId={user.id} />
        </TitledSection>
      </Card>
      <Card>
        <CreateUserForm />
      </Card>
      <Card>
        <TitledSection id="signup-title" title="Sign-up">
          <SignupSwitch initialOpen={status.signupOpen} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="instance-keys-title" title="Instance provider keys">
          <InstanceKeysSection initial={instanceKeys} users={users} />
        </TitledSection>
      </Card>
      <Card>
        <TitledSection id="project-roots-title" title="Project folders">
          <ProjectRootsSection initialRoots={roots} users={users} />
        </TitledSection>
      </Card>
      <Card>
        <ModelsAdminSection />
      </Card>
      <Card>
        <TitledSection id="prices-title" title="Prices">
          <PricesSection initial={prices} />
        </TitledSection>
      </Card>
      <Card>
        <AdminAuditSection users={users} />
      </Card>
      <Card>
        <TitledSection id="retention-title" title="Retention">
          <InstanceRetentionSection initial={retention.instance} />
        </TitledSection>
      </Card>
    </div>
  );
}
