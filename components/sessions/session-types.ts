import type { InfiniteData } from '@tanstack/react-query';
import type { RouterInputs, RouterOutputs } from '@/trpc/types';

/** A listed session (DESIGN §5: the 17 fields, and agentName, wayIn, agentGroup). */
export type SessionRow = RouterOutputs['session']['list']['rows'][number];
export type SessionPage = RouterOutputs['session']['list'];
/** session.list's input without the cursor: one infinite query per distinct input. */
export type SessionListInput = Omit<Exclude<RouterInputs['session']['list'], void | undefined>, 'cursor'>;
export type SessionListData = InfiniteData<SessionPage, string | null | undefined>;
export type SessionScope = 'active' | 'archived' | 'all';

const ROW_KEYS = [
  'id', 'agentId', 'title', 'createdAt', 'updatedAt', 'source', 'channel', 'accountId', 'peerDisplay',
  'peerId', 'pinned', 'archived', 'group', 'status', 'unread', 'preview', 'project', 'agentName', 'wayIn', 'agentGroup',
  'tags', 'state', 'machine',
] as const satisfies readonly (keyof SessionRow)[];

/** The list row inside a session.get answer (which adds headId, turnCount, …). */
export function rowOf(detail: SessionRow): SessionRow {
  const row: Record<string, unknown> = {};
  for (const key of ROW_KEYS) row[key] = detail[key];
  return row as unknown as SessionRow;
}
