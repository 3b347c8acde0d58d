import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { cache } from 'react';
import { createCaller } from '@/server/api/root';
import { createTRPCContext, type Context } from '@/server/api/trpc';

/** The request's context, built once per server render. */
export const getRequestContext = cache(async (): Promise<Context> => {
  return createTRPCContext({ headers: new Headers(await headers()) });
});

/** Server components call procedures directly: `const api = await getServerCaller(); await api.token.list()`. */
export const getServerCaller = cache(async () => createCaller(await getRequestContext()));

/**
 * The signed-in user, or a redirect to /signin. Every page of the (app) group calls it: Next
 * renders a page alongside its layout, so the layout's check alone does not stop the page's queries.
 */
export async function requireUser(): Promise<NonNullable<Context['user']>> {
  const { user } = await getRequestContext();
  if (!user) redirect('/signin');
  return user;
}
