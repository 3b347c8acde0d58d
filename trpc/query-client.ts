import { QueryClient } from '@tanstack/react-query';

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Server components render the first page; refetching at once would only repeat it.
      queries: { staleTime: 30_000, retry: false },
    },
  });
}
