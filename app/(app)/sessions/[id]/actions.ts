'use server';

import { z } from 'zod';
import type { RenderedMessage } from '@/components/session/types';
import { getServerCaller, requireUser } from '@/trpc/server';
import { MESSAGE_PAGE_SIZE, renderMessages } from './rendered-messages';

const pageInput = z.object({ sessionId: z.string(), before: z.string().optional() }).strict();

/**
 * A page of the session's current branch rendered on the server (Markdown sanitised, code
 * highlighted), for the list to put above what it shows (`before`) or to refresh the newest part.
 * The caller is the signed-in user of the request; message.branch checks the id and ownership.
 */
export async function loadMessagePage(input: { sessionId: string; before?: string }): Promise<RenderedMessage[]> {
  const { sessionId, before } = pageInput.parse(input);
  const user = await requireUser();
  const api = await getServerCaller();
  const page = await api.message.branch({ sessionId, limit: MESSAGE_PAGE_SIZE, before });
  return renderMessages(sessionId, user.id, page);
}
