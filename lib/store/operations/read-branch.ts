import { InvalidInputError, NotFoundError } from '../errors.js';
import { assertNodeId } from '../ids.js';
import { isConversationMessage, type SessionGraph } from '../dag/graph.js';
import { toMessage } from '../dag/message-shape.js';
import { secondsToMs } from '../time.js';
import type { BranchInfo, BranchMessage, Message, SessionMeta, StoredNode } from '../types.js';
import { withSession } from './session-access.js';

/** Root → head messages with the forks (siblings) and tool calls of each. */
export function branchMessages(graph: SessionGraph, headId: string | null, include?: (node: StoredNode) => boolean): BranchMessage[] {
  const out: BranchMessage[] = [];
  // A plain loop: this runs over 10,000-message branches, where every allocation shows.
  for (const node of graph.branchTo(headId, include)) {
    if (!isConversationMessage(node)) continue;
    const siblings = graph.siblingsOf(node);
    const calls = graph.toolCallsOf(node.id);
    const message = toMessage(node) as BranchMessage;
    message.siblings = include ? siblings.filter((id) => include(graph.get(id)!)) : siblings.slice();
    message.toolCalls = calls.length === 0 ? [] : (include ? calls.filter(include) : calls).map(toMessage);
    out.push(message);
  }
  return out;
}

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
  return withSession(ctx, sessionId, (session) => session.graph.bySeq.map(toMessage));
}

/** Every branch tip, plus the head when it is not a tip (after a switch to an earlier message). */
export function branchList(graph: SessionGraph, meta: SessionMeta): BranchInfo[] {
  const tips = graph.leaves();
  const head = meta.head_id ? graph.get(meta.head_id) : undefined;
  if (head && !tips.includes(head)) tips.push(head);
  return tips.map((tip, index) => {
    const label = meta.branches?.[tip.id];
    const path = graph.branchTo(tip.id);
    // A branch starts where it left the others: its first node that has siblings, else its root.
    const forkNode = [...path].reverse().find((node) => graph.siblingsOf(node).length > 1) ?? path[0] ?? tip;
    return {
      headId: tip.id,
      name: typeof label?.name === 'string' && label.name !== '' ? label.name : index === 0 ? 'main' : `branch ${index + 1}`,
      createdAt: secondsToMs(typeof label?.created_at === 'number' ? label.created_at : forkNode.created_at),
      updatedAt: secondsToMs(tip.created_at),
      current: tip.id === meta.head_id,
    };
  });
}

export function listBranches(ctx: Parameters<typeof withSession>[0], sessionId: string): Promise<BranchInfo[]> {
  return withSession(ctx, sessionId, (session) => branchList(session.graph, session.meta));
}
