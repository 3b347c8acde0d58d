import { notFound } from 'next/navigation';
import { CreateUserForm } from '@/components/admin/create-user-form';
import { SignupSwitch } from '@/components/admin/signup-switch';
import { UserTable } from '@/components/admin/user-table';
import { ModelsAdminSection } from '@/components/models/models-admin-section';
import { Card } from '@/components/ui/card';
import { getServerCaller, requireUser } from '@/trpc/server';

export const metadata = { title: 'Admin · Entity Memory' };

export default async function AdminPage() {
  const user = await requireUser();
  if (!user.admin) notFound();
  const api = await getServerCaller();
  const [users, status] = await Promise.all([api.admin.listUsers(), api.auth.status()]);
  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-8">
      <h1 className="text-2xl font-semibold">Admin</h1>
      <Card>
        <section className="space-y-4" aria-labelledby="users-title">
          <h2 id="users-title" className="text-lg font-semibold">
            Users
          </h2>
          <UserTable initialUsers={users} currentUserId={user.id} />
        </section>
      </Card>
      <Card>
        <CreateUserForm />
      </Card>
      <Card>
        <section className="space-y-2" aria-labelledby="signup-title">
          <h2 id="signup-title" className="text-lg font-semibold">
            Sign-up
          </h2>
          <SignupSwitch initialOpen={status.signupOpen} />
        </section>
      </Card>
      <Card>
        <ModelsAdminSection />
      </Card>
    </div>
  );
}
