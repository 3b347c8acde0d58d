import { isConversationMessage, type SessionGraph } from './graph.js';
import { toMessage } from './message-shape.js';
import { replayModelOf } from './replay-label.js';
import { secondsToMs } from '../time.js';
import type { BranchInfo, BranchMessage, SessionMeta, StoredNode } from '../types.js';

/**
 * Root → head messages with the forks (siblings) and tool calls of each. `from: 'memory'` gives
 * large messages as their stubs (first characters, no input) instead of reading their files.
 */
export function branchMessages(
  graph: SessionGraph,
  headId: string | null,
  include?: (node: StoredNode) => boolean,
  from: 'files' | 'memory' = 'files',
): BranchMessage[] {
  const whole = from === 'files' ? (node: StoredNode) => graph.full(node) : (node: StoredNode) => node;
  const out: BranchMessage[] = [];
  // A plain loop: this runs over 10,000-message branches, where every allocation shows.
  for (const node of graph.branchTo(headId, include)) {
    if (!isConversationMessage(node)) continue;
    const siblings = graph.siblingsOf(node);
    const calls = graph.toolCallsOf(node.id);
    const message = toMessage(whole(node)) as BranchMessage;
    message.siblings = include ? siblings.filter((id) => include(graph.get(id)!)) : siblings.slice();
    message.toolCalls = calls.length === 0 ? [] : (include ? calls.filter(include) : calls).map((call) => toMessage(whole(call)));
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
    const forkNode = branchStart(graph, tip);
    return {
      headId: tip.id,
      name: typeof label?.name === 'string' && label.name !== '' ? label.name : (replayModelOf(forkNode) ?? (index === 0 ? 'main' : `branch ${index + 1}`)),
      createdAt: secondsToMs(typeof label?.created_at === 'number' ? label.created_at : forkNode.created_at),
      updatedAt: secondsToMs(tip.created_at),
      current: tip.id === meta.head_id,
    };
  });
}

/**
 * Where a branch left the others: the nearest node at or above its tip that has siblings, else
 * its root. The walk stops there, so it never passes a fork: the walks of all tips are disjoint
 * and listing 1,000 branches costs one pass over the graph, not one root-to-tip walk each.
 */
export function branchStart(graph: SessionGraph, tip: StoredNode): StoredNode {
  const seen = new Set<string>();
  let current = tip;
  for (;;) {
    if (graph.siblingsOf(current).length > 1) return current;
    seen.add(current.id);
    const parent = current.predecessor ? graph.get(current.predecessor) : undefined;
    // A missing predecessor or a cycle (damaged foreign files) ends the walk, as branchTo does.
    if (!parent || seen.has(parent.id)) return current;
    current = parent;
  }
}
