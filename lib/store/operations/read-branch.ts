import { InvalidInputError, NotFoundError } from '../errors.js';
import { assertNodeId } from '../ids.js';
import { isConversationMessage } from '../dag/graph.js';
import { toMessage } from '../dag/message-shape.js';
import type { BranchInfo, BranchMessage, Message } from '../types.js';
import { withSession } from '../session/session-access.js';
import { branchList, branchMessages } from '../dag/branch.js';

export function getBranch(ctx: Parameters<typeof withSession>[0], sessionId: string, headId?: string | null): Promise<BranchMessage[]> {
  if (headId !== undefined && headId !== null) assertNodeId(headId);
  return withSession(ctx, sessionId, (session) => {
    const head = headId ?? session.meta.head_id;
    if (head && !session.graph.get(head)) throw new NotFoundError(`unknown message: ${head}`);
    if (head && !isConversationMessage(session.graph.get(head)!)) throw new InvalidInputError('a branch head must be a user or assistant message');
    return branchMessages(session.graph, head);
  });
}

export function getNodes(ctx: Parameters<typeof withSession>[0], sessionId: string): Promise<Message[]> {
  return withSession(ctx, sessionId, (session) => session.graph.bySeq.map((node) => toMessage(session.graph.full(node))));
}

/** The nodes of these ids, whole, by seq; an id the session does not have is left out. */
export function getNodesById(ctx: Parameters<typeof withSession>[0], sessionId: string, ids: readonly string[]): Promise<Message[]> {
  return withSession(ctx, sessionId, (session) =>
    ids
      .map((id) => session.graph.get(id))
      .filter((node) => node !== undefined)
      .sort((a, b) => a.seq - b.seq)
      .map((node) => toMessage(session.graph.full(node))),
  );
}

export interface NodePage {
  messages: Message[];
  nextCursor: string | null;
}

/** Page sizes of message.nodes, as every other list. */
const NODE_PAGE_DEFAULT = 200;
const NODE_PAGE_MAX = 200;

function encodeSeqCursor(seq: number): string {
  return Buffer.from(JSON.stringify(['seq', seq])).toString('base64url');
}

/** A node cursor is the last seq already returned; any seq is a valid place, anything else is not. */
function decodeSeqCursor(cursor: string): number {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && value[0] === 'seq' && Number.isSafeInteger(value[1]) && value[1] >= 0) return value[1];
  } catch {
    // fall through
  }
  throw new InvalidInputError('invalid cursor');
}

/** message.nodes: every message by seq, `limit` at a time after the cursor. */
export function listNodes(
  ctx: Parameters<typeof withSession>[0],
  sessionId: string,
  options: { limit?: number; cursor?: string | null } = {},
): Promise<NodePage> {
  const limit = options.limit ?? NODE_PAGE_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > NODE_PAGE_MAX) throw new InvalidInputError(`limit must be an integer from 1 to ${NODE_PAGE_MAX}`);
  const after = options.cursor ? decodeSeqCursor(options.cursor) : -1;
  return withSession(ctx, sessionId, (session) => {
    const nodes = session.graph.bySeq;
    // bySeq is sorted: binary search for the first seq after the cursor.
    let lo = 0;
    let hi = nodes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (nodes[mid]!.seq <= after) lo = mid + 1;
      else hi = mid;
    }
    const page = nodes.slice(lo, lo + limit);
    const more = lo + limit < nodes.length;
    return { messages: page.map((node) => toMessage(session.graph.full(node))), nextCursor: more ? encodeSeqCursor(page[page.length - 1]!.seq) : null };
  });
}

export function listBranches(ctx: Parameters<typeof withSession>[0], sessionId: string): Promise<BranchInfo[]> {
  return withSession(ctx, sessionId, (session) => branchList(session.graph, session.meta));
}
