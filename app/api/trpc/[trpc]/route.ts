import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from '@/server/api/root';
import { createTRPCContext, trpcResponseMeta } from '@/server/api/trpc';
import { BodyTooLargeError, limitBody, tooLargeResponse } from '@/server/http/body-limit';

async function handler(req: Request): Promise<Response> {
  let limited: Request;
  try {
    limited = await limitBody(req);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return tooLargeResponse();
    throw error;
  }
  return fetchRequestHandler({
    endpoint: '/api/trpc',
    req: limited,
    router: appRouter,
    createContext: () => createTRPCContext({ headers: limited.headers }),
    responseMeta: trpcResponseMeta,
    onError({ error, path }) {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`[trpc] ${path ?? '?'}:`, error.cause ?? error);
    },
  });
}

export { handler as GET, handler as POST };
