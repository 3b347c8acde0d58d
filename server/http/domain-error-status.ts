import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { toTRPCError } from '../api/errors';

/**
 * A StoreError/AuthError thrown under a route handler, as the HTTP status and message the tRPC
 * API answers for it (one mapping for both APIs); null for anything else, which the caller rethrows.
 */
export function domainErrorStatus(error: unknown): { status: number; message: string } | null {
  const trpcError = toTRPCError(error);
  return trpcError ? { status: getHTTPStatusCodeFromError(trpcError), message: trpcError.message } : null;
}
