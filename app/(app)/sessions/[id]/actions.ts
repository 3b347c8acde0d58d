'use server';

import { notFound } from 'next/navigation';
import { z } from 'zod';
import type { RenderedMessage } from '@/components/session/types';
import { getServerCaller, requireUser } from '@/trpc/server';
import { MESSAGE_PAGE_SIZE, renderMessages } from './rendered-messages';
import { orNotFound } from './timeline/or-not-found';

const pageInput = z.object({ sessionId: z.string(), before: z.string().optional(), after: z.string().optional(), headId: z.string().optional() }).strict();

/**
 * A page of the session's current branch (or of `headId`'s) rendered on the server (Markdown
 * sanitised, code highlighted), for the list to put above (`before`) or below (`after`) what it
 * shows, or to refresh the newest part.
 * The caller is the signed-in user of the request; message.branch checks the id and ownership.
 */
export async function loadMessagePage(input: { sessionId: string; before?: string; after?: string; headId?: string }): Promise<RenderedMessage[]> {
  const parsed = pageInput.safeParse(input);
  // Hostile or stale arguments name no session of this user: the same 404, never a 500.
  if (!parsed.success) notFound();
  const { sessionId, before, after, headId } = parsed.data;
  const user = await requireUser();
  const api = await getServerCaller();
  // Another user's session (or a deleted one) answers 404 like the page does, not a 500.
  const page = await orNotFound(api.message.branch({ sessionId, limit: MESSAGE_PAGE_SIZE, before, after, headId }));
  return renderMessages(sessionId, user.id, page);
}
