import 'server-only';
import { TRPCError } from '@trpc/server';
import { notFound } from 'next/navigation';

/**
 * A page's read through the server caller: an unknown (or another user's) session, commit or
 * project, or an id that is no id at all, is the 404 page, not an error page.
 */
export async function orNotFound<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof TRPCError && (error.code === 'NOT_FOUND' || error.code === 'BAD_REQUEST')) notFound();
    throw error;
  }
}
