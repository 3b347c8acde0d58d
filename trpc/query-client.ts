import { defaultShouldDehydrateQuery, QueryClient } from '@tanstack/react-query';

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Server components render the first page and the event stream keeps the cache live:
      // refetching at once would only repeat what the server sent.
      queries: { staleTime: 30_000, retry: false, refetchOnWindowFocus: false },
      // A prefetch still in flight when the page streams is sent too, so the client never refetches it.
      dehydrate: { shouldDehydrateQuery: (query) => defaultShouldDehydrateQuery(query) || query.state.status === 'pending' },
    },
  });
}
