import type { ReactNode } from 'react';
import type { RouterOutputs } from '@/trpc/types';

export type BranchMessage = RouterOutputs['message']['branch'][number];
export type ToolCallMessage = BranchMessage['toolCalls'][number];
export type SessionDetail = RouterOutputs['session']['get'];

/** One message of the branch as the server rendered it, with what the list needs to page and merge. */
export interface RenderedMessage {
  id: string;
  parentId: string | null;
  node: ReactNode;
}

/** Renders a page of the current branch (or `headId`'s) on the server: the newest one, the one before or after a message. */
export type LoadMessagePage = (input: { sessionId: string; before?: string; after?: string; headId?: string }) => Promise<RenderedMessage[]>;

/** The session opened at a message (a search hit): the branch it is on and whether that is the current one. */
export interface MessageAnchor {
  messageId: string;
  headId: string;
  current: boolean;
}
