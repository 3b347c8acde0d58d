'use server';

import { z } from 'zod';
import type { RenderedMessage } from '@/components/session/types';
import { getServerCaller, requireUser } from '@/trpc/server';
import { MESSAGE_PAGE_SIZE, renderMessages } from './rendered-messages';

const pageInput = z.object({ sessionId: z.string(), before: z.string().optional(), after: z.string().optional(), headId: z.string().optional() }).strict();

/**
 * A page of the session's current branch (or of `headId`'s) rendered on the server (Markdown
 * sanitised, code highlighted), for the list to put above (`before`) or below (`after`) what it
 * shows, or to refresh the newest part.
 * The caller is the signed-in user of the request; message.branch checks the id and ownership.
 */
export async function loadMessagePage(input: { sessionId: string; before?: string; after?: string; headId?: string }): Promise<RenderedMessage[]> {
  const { sessionId, before, after, headId } = pageInput.parse(input);
  const user = await requireUser();
  const api = await getServerCaller();
  const page = await api.message.branch({ sessionId, limit: MESSAGE_PAGE_SIZE, before, after, headId });
  return renderMessages(sessionId, user.id, page);
}
