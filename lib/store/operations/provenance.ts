import { isSessionId } from '../ids.js';
import { toMessage } from '../dag/message-shape.js';
import { readCommits, type RawCommit } from '../repo/commit-log.js';
import { readHistoryBody } from '../repo/session-git.js';
import { secondsToMs } from '../time.js';
import type { StoreContext } from '../session/store-context.js';
import type { Message } from '../types.js';
import { ensureCommitState } from '../session/commit-state.js';
import { withSession } from '../session/session-access.js';

/** entity-memory.zh.md §5: where an abstract memory came from. Times in ms. */
export interface Provenance {
  projectId: string;
  sessionId: string;
  nodeIds: string[];
  commit: string | null;
  eventTime: number;
  ingestionTime: number;
}

/**
 * The read layer for the abstraction pipeline. A deleted (or never existing) session reads as
 * absent — null or [] — never as an error: provenance pointers may dangle.
 */
export async function nodeProvenance(ctx: StoreContext, sessionId: string, nodeId: string): Promise<Provenance | null> {
  if (!isSessionId(sessionId) || !ctx.registry.has(sessionId)) return null;
  return withSession(ctx, sessionId, async (session) => {
    const node = session.graph.get(nodeId);
    const name = session.fileNames.get(nodeId);
    if (!node || !name) return null;
    const state = await ensureCommitState(session);
    let commit: RawCommit | null = null;
    if (state.historyNames.has(name)) {
      // The oldest commit whose history holds the node is the one that ingested it.
      const needle = Buffer.from(` ${name}\0`);
      for (const candidate of await readCommits(session.dir, 2_000)) {
        if (!(await readHistoryBody(session.dir, candidate.tree)).includes(needle)) break;
        commit = candidate;
      }
    }
    return {
      projectId: ctx.registry.get(sessionId)!.project_id,
      sessionId,
      nodeIds: [nodeId],
      commit: commit?.sha ?? null,
      eventTime: secondsToMs(node.created_at),
      ingestionTime: commit ? secondsToMs(commit.timestamp) : secondsToMs(node.created_at),
    };
  }).catch(() => null);
}

/** Nodes appended after `seq`, by seq: what the pipeline has not read yet. */
export async function nodesAfter(ctx: StoreContext, sessionId: string, seq: number): Promise<Message[]> {
  if (!isSessionId(sessionId) || !ctx.registry.has(sessionId)) return [];
  return withSession(ctx, sessionId, (session) => session.graph.bySeq.filter((node) => node.seq > seq).map((node) => toMessage(session.graph.full(node)))).catch(() => []);
}
