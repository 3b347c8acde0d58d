import { TrashList } from '@/components/retention/trash-list';
import { getQueryClient, HydrateClient, requireUser, trpc } from '@/trpc/server';

export const metadata = { title: 'Trash · Entity Memory' };

/** DESIGN §17: the sessions retention moved out, each restorable whole until it is purged. */
export default async function TrashPage() {
  await requireUser();
  await getQueryClient().prefetchQuery(trpc.trash.list.queryOptions());
  return (
    <div className="mx-auto max-w-3xl space-y-4 px-4 py-6">
      <h1 className="text-2xl font-semibold">Trash</h1>
      <HydrateClient>
        <TrashList />
      </HydrateClient>
    </div>
  );
}
