import { isConversationMessage, type SessionGraph } from './graph.js';
import { toMessage } from './message-shape.js';
import { secondsToMs } from '../time.js';
import type { BranchInfo, BranchMessage, SessionMeta, StoredNode } from '../types.js';

/** Root → head messages with the forks (siblings) and tool calls of each. */
export function branchMessages(graph: SessionGraph, headId: string | null, include?: (node: StoredNode) => boolean): BranchMessage[] {
  const out: BranchMessage[] = [];
  // A plain loop: this runs over 10,000-message branches, where every allocation shows.
  for (const node of graph.branchTo(headId, include)) {
    if (!isConversationMessage(node)) continue;
    const siblings = graph.siblingsOf(node);
    const calls = graph.toolCallsOf(node.id);
    const message = toMessage(graph.full(node)) as BranchMessage;
    message.siblings = include ? siblings.filter((id) => include(graph.get(id)!)) : siblings.slice();
    message.toolCalls = calls.length === 0 ? [] : (include ? calls.filter(include) : calls).map((call) => toMessage(graph.full(call)));
    out.push(message);
  }
  return out;
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
