import { BookmarksList } from '@/components/organise/bookmarks-list';
import { getQueryClient, HydrateClient, requireUser, trpc } from '@/trpc/server';

export const metadata = { title: 'Bookmarks · Entity Memory' };

/** DESIGN §16: the user's bookmarked messages across sessions, newest first, each opening its session at the message. */
export default async function BookmarksPage() {
  await requireUser();
  await getQueryClient().prefetchQuery(trpc.bookmark.list.queryOptions({}));
  return (
    <div className="mx-auto max-w-3xl space-y-4 px-4 py-6">
      <h1 className="text-2xl font-semibold">Bookmarks</h1>
      <HydrateClient>
        <BookmarksList />
      </HydrateClient>
    </div>
  );
}
