import 'server-only';
import { dehydrate, HydrationBoundary } from '@tanstack/react-query';
import { createTRPCOptionsProxy } from '@trpc/tanstack-react-query';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache, type ReactNode } from 'react';
import { appRouter, createCaller } from '@/server/api/root';
import { createPageContext, type Context } from '@/server/api/trpc';
import { makeQueryClient } from './query-client';

/** The request's context, built once per server render: pages go by the sign-in cookie alone. */
export const getRequestContext = cache(async (): Promise<Context> => {
  return createPageContext({ headers: new Headers(await headers()) });
});

/** Server components call procedures directly: `const api = await getServerCaller(); await api.token.list()`. */
export const getServerCaller = cache(async () => createCaller(await getRequestContext()));

/** One query client per server render: what a page prefetches is what `HydrateClient` sends. */
export const getQueryClient = cache(makeQueryClient);

/**
 * Query options for server components, the same keys the client's `useTRPC()` builds:
 * `await getQueryClient().prefetchQuery(trpc.session.get.queryOptions({ id }))`, then render the
 * client component inside `<HydrateClient>` and it reads the cache without a request.
 */
export const trpc = createTRPCOptionsProxy({
  ctx: getRequestContext,
  router: appRouter,
  queryClient: getQueryClient,
});

/** Sends what this render prefetched to the client's cache. */
export function HydrateClient({ children }: { children: ReactNode }) {
  return <HydrationBoundary state={dehydrate(getQueryClient())}>{children}</HydrationBoundary>;
}

/**
 * The signed-in user, or a redirect to /signin. Every page of the (app) group calls it: Next
 * renders a page alongside its layout, so the layout's check alone does not stop the page's queries.
 */
export async function requireUser(): Promise<NonNullable<Context['user']>> {
  const { user } = await getRequestContext();
  if (!user) redirect('/signin');
  return user;
}
