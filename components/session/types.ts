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

/** Renders a page of the current branch on the server: the newest one, or the one before a message. */
export type LoadMessagePage = (input: { sessionId: string; before?: string }) => Promise<RenderedMessage[]>;
