import type { StoredNode } from '../types.js';
import { INLINE_NODE_CHARS, STUB_MAX_CHARS, stubOf } from './node-stub.js';

/** A user or model message: what a branch is made of and what can fork. */
export function isConversationMessage(node: StoredNode): boolean {
  return node.role === 'user' || node.role === 'llm';
}

/** A tool node hangs off the assistant node that called it; "" and "ROOT" are no caller. */
export function callerOf(node: StoredNode): string | null {
  return node.caller && node.caller !== 'ROOT' ? node.caller : null;
}

export interface SessionGraphFiles {
  /** the node as its history file holds it, null when the file is gone or torn */
  read(id: string): StoredNode | null;
  /** characters of each node's file, as loaded */
  sizes?: ReadonlyMap<string, number>;
}

/**
 * The session's DAG in memory: nodes by id and by seq, plus the two edge indexes the reads
 * need (conversation children by predecessor, tool calls by caller), kept up to date on append.
 * With `files`, a node whose file is large is kept as a stub (node-stub.ts) and `full` reads it
 * back; without (a graph read from a git tree), every node stays whole.
 */
export class SessionGraph {
  readonly byId = new Map<string, StoredNode>();
  readonly bySeq: StoredNode[] = [];
  private readonly children = new Map<string, string[]>();
  private readonly calls = new Map<string, string[]>();
  private readonly userCounts = new Map<string, number>();
  private readonly onDisk = new Set<string>();
  /** what memory holds of the nodes, in characters (for the session cache's budget) */
  retainedChars = 0;
  private static readonly ROOT_KEY = '\u0000root';

  constructor(
    nodes: StoredNode[],
    private readonly files?: SessionGraphFiles,
  ) {
    const sorted = [...nodes].sort((a, b) => a.seq - b.seq);
    for (const node of sorted) this.add(node, files?.sizes?.get(node.id));
  }

  /** `fileChars`: the length of the node's file text, when it has one; a large one keeps a stub. */
  add(whole: StoredNode, fileChars?: number): void {
    let node = whole;
    let kept = fileChars ?? 0;
    // Past its budget a session keeps even mid-sized nodes as stubs, so many of them cannot add up.
    const large = fileChars !== undefined && (fileChars > INLINE_NODE_CHARS || (this.retainedChars > SESSION_INLINE_CHARS && fileChars > STUB_MAX_CHARS));
    if (this.files && large) {
      node = stubOf(whole);
      this.onDisk.add(node.id);
      kept = STUB_MAX_CHARS;
    }
    this.retainedChars += kept + NODE_OVERHEAD_CHARS;
    this.byId.set(node.id, node);
    const last = this.bySeq[this.bySeq.length - 1];
    if (!last || last.seq < node.seq) this.bySeq.push(node);
    else {
      // Out-of-order seq only happens with foreign files; keep the order exact anyway.
      const at = this.bySeq.findIndex((other) => other.seq > node.seq);
      this.bySeq.splice(at, 0, node);
    }
    const caller = callerOf(node);
    if (caller) push(this.calls, caller, node.id);
    else if (isConversationMessage(node)) push(this.children, node.predecessor ?? SessionGraph.ROOT_KEY, node.id);
  }

  /** The node as memory keeps it: whole, or a stub when its content lives on disk (isOnDisk). */
  get(id: string): StoredNode | undefined {
    return this.byId.get(id);
  }

  isOnDisk(id: string): boolean {
    return this.onDisk.has(id);
  }

  /**
   * The whole node: the stub's file read back. A file gone or changed under us (foreign tools)
   * leaves the stub, which still has the node's first characters.
   */
  full(node: StoredNode): StoredNode {
    if (!this.onDisk.has(node.id)) return node;
    const read = this.files?.read(node.id) ?? null;
    return read && read.id === node.id ? read : node;
  }

  get lastSeq(): number {
    return this.bySeq[this.bySeq.length - 1]?.seq ?? -1;
  }

  /** Conversation messages that share this node's predecessor, itself included, by seq. */
  siblingsOf(node: StoredNode): string[] {
    return this.children.get(node.predecessor ?? SessionGraph.ROOT_KEY) ?? [node.id];
  }

  childrenOf(id: string | null): string[] {
    return this.children.get(id ?? SessionGraph.ROOT_KEY) ?? [];
  }

  toolCallsOf(id: string): StoredNode[] {
    const calls = this.calls.get(id);
    return calls ? calls.map((callId) => this.byId.get(callId)!) : NO_NODES;
  }

  /**
   * Root → head along predecessor edges. A cycle or a missing predecessor ends the walk
   * instead of looping or failing: foreign files may be damaged.
   */
  branchTo(headId: string | null, include: (node: StoredNode) => boolean = () => true): StoredNode[] {
    const chain: StoredNode[] = [];
    const seen = new Set<string>();
    let current = headId ? this.byId.get(headId) : undefined;
    while (current && !seen.has(current.id) && include(current)) {
      seen.add(current.id);
      chain.push(current);
      current = current.predecessor ? this.byId.get(current.predecessor) : undefined;
    }
    return chain.reverse();
  }

  /**
   * User messages from the root to `id`: the turn number of the titles policy. Memoised per
   * node (nodes never change), so it costs one walk per new node, not one per call.
   */
  userCountTo(id: string | null): number {
    const pending: StoredNode[] = [];
    const seen = new Set<string>();
    let current = id ? this.byId.get(id) : undefined;
    let base = 0;
    while (current && !seen.has(current.id)) {
      const known = this.userCounts.get(current.id);
      if (known !== undefined) {
        base = known;
        break;
      }
      seen.add(current.id);
      pending.push(current);
      current = current.predecessor ? this.byId.get(current.predecessor) : undefined;
    }
    for (let i = pending.length - 1; i >= 0; i--) {
      const node = pending[i]!;
      if (node.role === 'user') base++;
      this.userCounts.set(node.id, base);
    }
    return base;
  }

  /** Conversation messages without conversation children: the tips of every branch. */
  leaves(): StoredNode[] {
    return this.bySeq.filter((node) => isConversationMessage(node) && callerOf(node) === null && this.childrenOf(node.id).length === 0);
  }
}

const NO_NODES: StoredNode[] = [];
/** The object, map and index entries of any node. */
const NODE_OVERHEAD_CHARS = 300;
/** What one session keeps whole in memory before every node larger than a stub becomes one. */
export const SESSION_INLINE_CHARS = 16 * 1024 * 1024;

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
