import { isConversationMessage, callerOf } from '../dag/graph.js';
import { contentOf, messageRoleOf } from '../dag/message-shape.js';
import type { StoreContext } from '../session/store-context.js';
import type { BranchInfo } from '../types.js';
import { branchList } from '../dag/branch.js';
import { withSession } from '../session/session-access.js';
import { firstLineOf } from '../text.js';

/** A conversation message as the branch graph needs it: no content beyond a first line. */
export interface DagNode {
  id: string;
  role: 'user' | 'assistant';
  parentId: string | null;
  firstLine: string;
}

export interface ConversationDag {
  headId: string | null;
  /** user and assistant messages by seq (tool results and records hang off them, not in the graph) */
  nodes: DagNode[];
  tips: BranchInfo[];
}

/** The session's conversation DAG now, for the branch graph the server lays out. */
export function conversationDag(ctx: StoreContext, sessionId: string): Promise<ConversationDag> {
  return withSession(ctx, sessionId, (session) => {
    const nodes: DagNode[] = [];
    for (const node of session.graph.bySeq) {
      if (!isConversationMessage(node) || callerOf(node) !== null) continue;
      nodes.push({
        id: node.id,
        role: messageRoleOf(node) === 'user' ? 'user' : 'assistant',
        parentId: node.predecessor && node.predecessor !== 'ROOT' ? node.predecessor : null,
        firstLine: firstLineOf(contentOf(node)),
      });
    }
    return { headId: session.meta.head_id ?? null, nodes, tips: branchList(session.graph, session.meta) };
  });
}
