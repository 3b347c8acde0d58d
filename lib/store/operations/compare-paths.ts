import { InvalidInputError, NotFoundError } from '../errors.js';
import { assertNodeId, DEFAULT_PROJECT_ID } from '../ids.js';
import { isConversationMessage, type SessionGraph } from '../dag/graph.js';
import { toMessage } from '../dag/message-shape.js';
import { readTurnLog } from '../repo/turn-log.js';
import type { CommitDiffFile } from '../repo/diff-parse.js';
import { projectRangePatch, treeBefore } from '../projects/index.js';
import { ensureCommitState } from '../session/commit-state.js';
import { withSession } from '../session/session-access.js';
import type { StoreContext } from '../session/store-context.js';
import type { BranchMessage, StoredNode } from '../types.js';

/**
 * Two branches of one conversation read for "Compare" (DESIGN §14): the common message and each
 * side's messages after it, walked up the two ancestor chains only (never over the whole graph),
 * and the project changes each side's turns committed.
 */

/** One side's agent commits (oldest first) and what they changed together. */
export interface SideProjectChanges {
  commits: string[];
  files: CommitDiffFile[];
}

export type BranchProjectComparison =
  /** home: the session is in no project; no-commits: neither side's turns committed project changes; missing: the folder or its commits are gone */
  | { state: 'none'; reason: 'home' | 'no-commits' | 'missing' }
  /** `between`: from the tree side a left to the one side b left (a side with no commits: the tree before the other side's first) */
  | { state: 'diff'; projectId: string; a: SideProjectChanges; b: SideProjectChanges; between: CommitDiffFile[] };

export interface ComparePaths {
  /** the last message both branches share; null when they start with different first messages */
  ancestor: BranchMessage | null;
  /** the messages after the ancestor, oldest first, up to and including `a` (resp. `b`) */
  a: BranchMessage[];
  b: BranchMessage[];
  project: BranchProjectComparison;
}

/** Enough for any session: the turn log is read in one git process, a turn per commit. */
const MAX_TURN_COMMITS = 1_000_000;

function branchMessage(graph: SessionGraph, node: StoredNode): BranchMessage {
  const message = toMessage(graph.full(node)) as BranchMessage;
  message.siblings = graph.siblingsOf(node).slice();
  message.toolCalls = graph.toolCallsOf(node.id).map((call) => toMessage(graph.full(call)));
  return message;
}

function endOf(graph: SessionGraph, id: string, name: 'a' | 'b'): StoredNode {
  const node = graph.get(assertNodeId(id));
  if (!node) throw new NotFoundError(`unknown message (${name}): ${id}`);
  if (!isConversationMessage(node)) throw new InvalidInputError(`${name} must be a user or assistant message`);
  return node;
}

interface SideCommits {
  a: string[];
  b: string[];
}

/** The project commits of the turns that added each side's messages, oldest first. */
async function sideProjectCommits(dir: string, head: string, sideA: Set<string>, sideB: Set<string>): Promise<SideCommits> {
  const out: SideCommits = { a: [], b: [] };
  for (const commit of (await readTurnLog(dir, head, MAX_TURN_COMMITS)).reverse()) {
    const sha = /^OpenProgram-Project-Commit:\s*([0-9a-f]{40})\s*$/m.exec(commit.message)?.[1];
    if (!sha) continue;
    if (commit.addedNodeIds.some((id) => sideA.has(id))) out.a.push(sha);
    if (commit.addedNodeIds.some((id) => sideB.has(id))) out.b.push(sha);
  }
  return out;
}

async function compareProject(ctx: StoreContext, projectId: string, commits: SideCommits): Promise<BranchProjectComparison> {
  if (commits.a.length === 0 && commits.b.length === 0) return { state: 'none', reason: 'no-commits' };
  const where = await ctx.projects.workdirState(projectId).catch(() => null);
  if (!where || where.state === 'missing') return { state: 'none', reason: 'missing' };
  const options = { allowedRoots: ctx.allowedRoots };
  const beforeOf = (shas: string[]) => (shas.length > 0 ? treeBefore(where.path, shas[0]!) : Promise.resolve(null));
  const [beforeA, beforeB] = await Promise.all([beforeOf(commits.a), beforeOf(commits.b)]);
  const leftA = commits.a.at(-1) ?? beforeB;
  const leftB = commits.b.at(-1) ?? beforeA;
  const none = Promise.resolve(null);
  const [diffA, diffB, between] = await Promise.all([
    beforeA ? projectRangePatch(where.path, beforeA, commits.a.at(-1)!, options) : none,
    beforeB ? projectRangePatch(where.path, beforeB, commits.b.at(-1)!, options) : none,
    leftA && leftB ? projectRangePatch(where.path, leftA, leftB, options) : none,
  ]);
  if ((commits.a.length > 0 && !diffA) || (commits.b.length > 0 && !diffB)) return { state: 'none', reason: 'missing' };
  return {
    state: 'diff',
    projectId,
    a: { commits: commits.a, files: diffA?.files ?? [] },
    b: { commits: commits.b, files: diffB?.files ?? [] },
    between: between?.files ?? [],
  };
}

export async function readComparePaths(ctx: StoreContext, sessionId: string, a: string, b: string): Promise<ComparePaths> {
  if (a === b) throw new InvalidInputError('a and b are the same message: pick two branches');
  const projectId = ctx.registry.get(sessionId)?.project_id ?? DEFAULT_PROJECT_ID;
  const read = await withSession(ctx, sessionId, async (session) => {
    const { graph } = session;
    const chainA = graph.branchTo(endOf(graph, a, 'a').id);
    const chainB = graph.branchTo(endOf(graph, b, 'b').id);
    // Each node has one predecessor, so the shared history is the chains' common prefix.
    let shared = 0;
    while (shared < chainA.length && shared < chainB.length && chainA[shared] === chainB[shared]) shared++;
    const sideA = chainA.slice(shared).filter(isConversationMessage);
    const sideB = chainB.slice(shared).filter(isConversationMessage);
    let commits: SideCommits = { a: [], b: [] };
    if (projectId !== DEFAULT_PROJECT_ID) {
      const state = await ensureCommitState(session);
      const ids = (nodes: StoredNode[]) => new Set(nodes.map((node) => node.id));
      if (state.head) commits = await sideProjectCommits(session.dir, state.head, ids(sideA), ids(sideB));
    }
    return {
      ancestor: shared > 0 ? branchMessage(graph, chainA[shared - 1]!) : null,
      a: sideA.map((node) => branchMessage(graph, node)),
      b: sideB.map((node) => branchMessage(graph, node)),
      commits,
    };
  });
  const project: BranchProjectComparison = projectId === DEFAULT_PROJECT_ID ? { state: 'none', reason: 'home' } : await compareProject(ctx, projectId, read.commits);
  return { ancestor: read.ancestor, a: read.a, b: read.b, project };
}
