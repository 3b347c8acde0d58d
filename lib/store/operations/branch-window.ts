import { InvalidInputError, NotFoundError } from '../errors.js';
import { assertNodeId } from '../ids.js';
import { isConversationMessage, type SessionGraph } from '../dag/graph.js';
import { toMessage } from '../dag/message-shape.js';
import type { BranchMessage, StoredNode } from '../types.js';
import { withSession } from '../session/session-access.js';

export interface BranchWindowOptions {
  /** the branch to read (default the session head); ignored when `before` is given */
  headId?: string | null;
  /** at most this many messages, the newest ones of the range */
  limit?: number;
  /** read the branch that leads to this message, up to but without it (the next older page) */
  before?: string | null;
  /** read the messages that follow this one on the branch to `headId`, the oldest `limit` of them (the next newer page) */
  after?: string | null;
}

/** A window of a branch around one message (a search hit), and the branch it was read on. */
export interface BranchAround {
  /** the tip of the branch shown: the session head when the message is on it, else the newest tip through it */
  headId: string;
  /** whether that is the session's current branch */
  current: boolean;
  messages: BranchMessage[];
}

/**
 * The newest `limit` messages of a branch, oldest first, each with its siblings and tool calls.
 * It walks back from the end only as far as it needs, so a page of a 10,000-message branch costs
 * what the page holds. When the oldest message has a `parentId`, older messages exist: pass its
 * id as `before` for the next older page.
 */
function branchWindow(graph: SessionGraph, endId: string | null, limit: number): BranchMessage[] {
  const picked: StoredNode[] = [];
  const seen = new Set<string>();
  let current = endId ? graph.get(endId) : undefined;
  // A cycle or a missing predecessor ends the walk, as in SessionGraph.branchTo.
  while (current && !seen.has(current.id) && picked.length < limit) {
    seen.add(current.id);
    if (isConversationMessage(current)) picked.push(current);
    current = current.predecessor ? graph.get(current.predecessor) : undefined;
  }
  const out: BranchMessage[] = [];
  for (let i = picked.length - 1; i >= 0; i--) {
    const node = picked[i]!;
    const message = toMessage(graph.full(node)) as BranchMessage;
    message.siblings = graph.siblingsOf(node).slice();
    const calls = graph.toolCallsOf(node.id);
    message.toolCalls = calls.length === 0 ? [] : calls.map((call) => toMessage(graph.full(call)));
    out.push(message);
  }
  return out;
}

/**
 * The newest branch tip whose path holds `nodeId` (the node itself when nothing follows it):
 * where the head goes when someone switches to that message's branch at a fork.
 */
function newestTipUnder(graph: SessionGraph, nodeId: string): StoredNode | undefined {
  const start = graph.get(nodeId);
  if (!start) return undefined;
  let best: StoredNode | undefined;
  const stack = [start];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node.id)) continue;
    seen.add(node.id);
    const children = graph.childrenOf(node.id);
    if (children.length === 0) {
      if (!best || node.seq > best.seq) best = node;
      continue;
    }
    for (const id of children) {
      const child = graph.get(id);
      if (child) stack.push(child);
    }
  }
  return best;
}

/**
 * The conversation messages from `endId` back to `stopId` (without it), newest first, or null when
 * `stopId` is not on that branch. It only follows predecessors: a 10,000-message branch is 10,000 steps.
 */
function newerThan(graph: SessionGraph, endId: string | null, stopId: string): StoredNode[] | null {
  const newer: StoredNode[] = [];
  const seen = new Set<string>();
  let current = endId ? graph.get(endId) : undefined;
  while (current && !seen.has(current.id)) {
    if (current.id === stopId) return newer;
    seen.add(current.id);
    if (isConversationMessage(current)) newer.push(current);
    current = current.predecessor ? graph.get(current.predecessor) : undefined;
  }
  return null;
}

function conversationNode(graph: SessionGraph, id: string, what: string): StoredNode {
  const node = graph.get(id);
  if (!node) throw new NotFoundError(`unknown message: ${id}`);
  if (!isConversationMessage(node)) throw new InvalidInputError(`${what} must be a user or assistant message`);
  return node;
}

export function getBranchWindow(ctx: Parameters<typeof withSession>[0], sessionId: string, options: BranchWindowOptions): Promise<BranchMessage[]> {
  const { headId, before, after, limit } = options;
  if (headId) assertNodeId(headId);
  if (before) assertNodeId(before);
  if (after) assertNodeId(after);
  if (before && after) throw new InvalidInputError('give before or after, not both');
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new InvalidInputError('limit must be a positive whole number');
  return withSession(ctx, sessionId, (session) => {
    const { graph } = session;
    let end: string | null;
    if (after) {
      conversationNode(graph, after, 'after');
      const tip = headId ?? session.meta.head_id;
      if (tip) conversationNode(graph, tip, 'a branch head');
      const newer = newerThan(graph, tip, after);
      if (!newer) throw new InvalidInputError('after must be a message on the branch read');
      const count = Math.min(newer.length, limit ?? Number.POSITIVE_INFINITY);
      if (count === 0) return [];
      return branchWindow(graph, newer[newer.length - count]!.id, count);
    }
    if (before) end = conversationNode(graph, before, 'before').predecessor ?? null;
    else {
      end = headId ?? session.meta.head_id;
      if (end) conversationNode(graph, end, 'a branch head');
    }
    return branchWindow(graph, end, limit ?? Number.POSITIVE_INFINITY);
  });
}

/** `{headId}`: the newest tip of the branches through `nodeId` (see newestTipUnder). */
export function getTipOf(ctx: Parameters<typeof withSession>[0], sessionId: string, nodeId: string): Promise<{ headId: string }> {
  assertNodeId(nodeId);
  return withSession(ctx, sessionId, (session) => {
    conversationNode(session.graph, nodeId, 'the message');
    return { headId: newestTipUnder(session.graph, nodeId)!.id };
  });
}

/**
 * `limit` messages of a branch around `messageId`, up to half of them after it: the session opened
 * at a search hit. On the current branch when the message is on it; otherwise on the newest branch
 * through it, read without moving the head.
 */
export function getBranchAround(ctx: Parameters<typeof withSession>[0], sessionId: string, messageId: string, limit: number): Promise<BranchAround> {
  assertNodeId(messageId);
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidInputError('limit must be a positive whole number');
  return withSession(ctx, sessionId, (session) => {
    const { graph } = session;
    conversationNode(graph, messageId, 'the message');
    const head = session.meta.head_id;
    let newer = newerThan(graph, head, messageId);
    const current = newer !== null;
    const tip = current ? head! : newestTipUnder(graph, messageId)!.id;
    if (!newer) newer = newerThan(graph, tip, messageId) ?? [];
    const following = Math.min(newer.length, Math.floor(limit / 2));
    const end = following > 0 ? newer[newer.length - following]!.id : messageId;
    return { headId: tip, current, messages: branchWindow(graph, end, limit) };
  });
}
