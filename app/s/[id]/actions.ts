'use server';

import { notFound } from 'next/navigation';
import { z } from 'zod';
import type { RenderedMessage } from '@/components/session/types';
import { sharedPageOr } from './shared-messages';

// The session list's own call shape: its `sessionId` is the link's id here.
const pageInput = z.object({ sessionId: z.string().max(64), before: z.string().optional(), after: z.string().optional(), headId: z.string().optional() }).strict();

/**
 * The page of a shared branch before `before` (or the newest page), rendered as the link's
 * owner, checked against the link on every call: a revoked or expired link is 404 at once.
 */
export async function loadSharedPage(input: { sessionId: string; before?: string; after?: string; headId?: string }): Promise<RenderedMessage[]> {
  const parsed = pageInput.safeParse(input);
  // Hostile or stale arguments name no page of this link: the same 404, never a 500.
  if (!parsed.success || parsed.data.after !== undefined || parsed.data.headId !== undefined) notFound();
  return (await sharedPageOr(parsed.data.sessionId, parsed.data.before)).messages;
}
