import { NewChat } from '@/components/chat/new-chat';
import { getQueryClient, HydrateClient, requireUser, trpc } from '@/trpc/server';

export const metadata = { title: 'New chat · Entity Memory' };

/** `/`: a new chat, a draft that creates nothing until its first message is sent. */
export default async function HomePage() {
  await requireUser();
  const queryClient = getQueryClient();
  await Promise.all([queryClient.prefetchQuery(trpc.chat.modelStatus.queryOptions()), queryClient.prefetchQuery(trpc.project.list.queryOptions())]);
  return (
    <HydrateClient>
      <div className="mx-auto max-w-3xl px-4 py-6">
        <NewChat />
      </div>
    </HydrateClient>
  );
}
