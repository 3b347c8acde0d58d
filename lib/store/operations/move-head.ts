import { InvalidInputError, NotFoundError } from '../errors.js';
import { assertNodeId } from '../ids.js';
import { isConversationMessage } from '../dag/graph.js';
import type { StoreContext } from '../session/store-context.js';
import { updateSessionFields, withSession } from '../session/session-access.js';
import { recordRetryRef } from '../session/commit-state.js';

/** Switch the conversation head (not git HEAD). Recency is kept. */
export function setHead(ctx: StoreContext, sessionId: string, headId: string): Promise<{ headId: string }> {
  assertNodeId(headId);
  return withSession(ctx, sessionId, async (session) => {
    const node = session.graph.get(headId);
    if (!node) throw new NotFoundError(`unknown message: ${headId}`);
    if (!isConversationMessage(node)) throw new InvalidInputError('a branch head must be a user or assistant message');
    await updateSessionFields(ctx, session, { head_id: headId });
    return { headId };
  });
}

/**
 * Retry forks the DAG (DESIGN §4.4): the head moves back to the retried reply's parent so the
 * next reply appended there becomes its sibling and the new head; the fork is also recorded as
 * git branch retry-<assistantId> at the commit that holds the retried reply.
 */
export function retry(ctx: StoreContext, sessionId: string, assistantId: string): Promise<{ parentId: string | null }> {
  assertNodeId(assistantId);
  return withSession(ctx, sessionId, async (session) => {
    const node = session.graph.get(assistantId);
    if (!node) throw new NotFoundError(`unknown message: ${assistantId}`);
    if (node.role !== 'llm' || node.metadata['role'] === 'system') throw new InvalidInputError('only an assistant message can be retried');
    const parentId = node.predecessor;
    await updateSessionFields(ctx, session, { head_id: parentId });
    await recordRetryRef(session, assistantId, ctx.redactor);
    return { parentId };
  });
}
