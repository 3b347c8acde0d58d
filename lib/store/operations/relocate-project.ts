import { InvalidInputError, NotFoundError } from '../errors.js';
import { assertProjectId, isSessionId } from '../ids.js';
import { relocateNode } from '../dag/record-nodes.js';
import type { StoreContext } from '../session/store-context.js';
import type { StoredNode } from '../types.js';
import { appendRecordNode } from '../session/append-node.js';

/**
 * The repair of a project whose folder moved (operations.zh.md "修复缺失的目录"): the project
 * keeps its id and gets the new path; the session that asked gets a project/relocate record
 * node, which does not move its head.
 */
export async function relocateProject(
  ctx: StoreContext,
  projectId: string,
  path: string,
  sessionId?: string,
): Promise<{ oldPath: string; path: string; nodeId: string | null }> {
  assertProjectId(projectId);
  if (sessionId !== undefined && !isSessionId(sessionId)) throw new InvalidInputError(`invalid session id: ${JSON.stringify(sessionId)}`);
  // Checked before the move: a refused request changes nothing.
  if (sessionId !== undefined && !ctx.registry.has(sessionId)) throw new NotFoundError(`unknown session: ${sessionId}`);
  const moved = await ctx.projects.relocate(projectId, path);
  if (sessionId === undefined) return { ...moved, nodeId: null };
  const record = await appendRecordNode(ctx, sessionId, (seq, now) =>
    relocateNode({ oldPath: moved.oldPath, newPath: moved.path, projectId }, seq, now) as unknown as StoredNode,
  );
  return { ...moved, nodeId: record.id };
}
