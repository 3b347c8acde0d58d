import dagre from '@dagrejs/dagre';

/**
 * The branch graph of a conversation, laid out on the server with dagre so the page ships
 * positions, not a layout engine. Long linear runs collapse into one segment node, which keeps
 * a session of 10,000 messages and 200 branches to a few hundred boxes.
 */

export interface GraphInputNode {
  id: string;
  role: 'user' | 'assistant';
  parentId: string | null;
  firstLine: string;
}

export interface GraphInputTip {
  headId: string;
  name: string;
  current: boolean;
}

export interface GraphInput {
  headId: string | null;
  nodes: GraphInputNode[];
  tips: GraphInputTip[];
}

export interface LaidOutNode {
  id: string;
  kind: 'user' | 'assistant' | 'segment';
  x: number;
  y: number;
  width: number;
  height: number;
  /** first line of the message, or "… N messages" for a segment */
  label: string;
  /** messages a segment stands for (1 for a message) */
  count: number;
  isHead: boolean;
  /** set on a branch tip: the branch it ends */
  tip: { headId: string; name: string; current: boolean } | null;
}

export interface LaidOutEdge {
  from: string;
  to: string;
  points: Array<{ x: number; y: number }>;
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  /** messages in the session's conversation, before collapsing */
  messageCount: number;
}

/** Runs shorter than this stay as their messages: collapsing two dots saves nothing. */
const MIN_COLLAPSED_RUN = 3;
const NODE_SIZE = 18;
const SEGMENT = { width: 104, height: 20 };
const TIP_LABEL_CHARS = 24;
const CHAR_WIDTH = 6.6;
const MARGIN = 12;

export function segmentLabel(count: number): string {
  return `… ${count} messages`;
}

function tipLabel(name: string): string {
  return [...name].length > TIP_LABEL_CHARS ? `${[...name].slice(0, TIP_LABEL_CHARS - 1).join('')}…` : name;
}

interface Visible {
  id: string;
  kind: LaidOutNode['kind'];
  label: string;
  count: number;
  isHead: boolean;
  tip: LaidOutNode['tip'];
}

/**
 * Which boxes to draw: every root, fork, branch start, tip and the head stays; the messages
 * between two of them become a segment when there are at least MIN_COLLAPSED_RUN.
 */
export function collapseRuns(input: GraphInput): { nodes: Visible[]; edges: Array<[string, string]> } {
  const byId = new Map(input.nodes.map((node) => [node.id, node]));
  const children = new Map<string, string[]>();
  const roots: string[] = [];
  for (const node of input.nodes) {
    if (node.parentId && byId.has(node.parentId)) {
      const list = children.get(node.parentId) ?? [];
      list.push(node.id);
      children.set(node.parentId, list);
    } else roots.push(node.id);
  }
  const rootSet = new Set(roots);
  const tips = new Map(input.tips.map((tip) => [tip.headId, tip]));
  const kept = (id: string): boolean => {
    const node = byId.get(id)!;
    const kids = children.get(id)?.length ?? 0;
    if (kids !== 1 || rootSet.has(id) || id === input.headId || tips.has(id)) return true;
    const parentKids = node.parentId ? (children.get(node.parentId)?.length ?? 0) : 0;
    return parentKids > 1;
  };
  const nodes: Visible[] = [];
  const edges: Array<[string, string]> = [];
  const message = (id: string): Visible => {
    const node = byId.get(id)!;
    const tip = tips.get(id);
    return { id, kind: node.role, label: node.firstLine, count: 1, isHead: id === input.headId, tip: tip ? { headId: tip.headId, name: tip.name, current: tip.current } : null };
  };
  const stack = [...roots].reverse();
  for (const root of roots) nodes.push(message(root));
  // Iterative: a 10,000-message chain must not recurse 10,000 deep.
  while (stack.length > 0) {
    const from = stack.pop()!;
    for (const child of children.get(from) ?? []) {
      const run: string[] = [];
      let current = child;
      while (!kept(current)) {
        run.push(current);
        current = children.get(current)![0]!;
      }
      let previous = from;
      if (run.length >= MIN_COLLAPSED_RUN) {
        const segmentId = `segment-${run[0]}`;
        nodes.push({ id: segmentId, kind: 'segment', label: segmentLabel(run.length), count: run.length, isHead: false, tip: null });
        edges.push([previous, segmentId]);
        previous = segmentId;
      } else {
        for (const id of run) {
          nodes.push(message(id));
          edges.push([previous, id]);
          previous = id;
        }
      }
      nodes.push(message(current));
      edges.push([previous, current]);
      stack.push(current);
    }
  }
  return { nodes, edges };
}

function sizeOf(node: Visible): { width: number; height: number } {
  if (node.kind === 'segment') return SEGMENT;
  // A tip reserves room for its branch name to the right of its dot.
  const text = node.tip ? `${tipLabel(node.tip.name)}${node.tip.current ? ' (current)' : ''}` : '';
  const label = node.tip ? Math.ceil(text.length * CHAR_WIDTH) + 8 : 0;
  return { width: NODE_SIZE + label, height: NODE_SIZE };
}

/** The positions of every box and edge, left (the root) to right (the tips). */
export function layoutBranchGraph(input: GraphInput): GraphLayout {
  const { nodes, edges } = collapseRuns(input);
  const graph = new dagre.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 10, ranksep: 22, marginx: MARGIN, marginy: MARGIN });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { ...sizeOf(node) });
  for (const [from, to] of edges) graph.setEdge(from, to);
  dagre.layout(graph);
  const laidOut = nodes.map((node): LaidOutNode => {
    const box = graph.node(node.id);
    return { ...node, x: round(box.x), y: round(box.y), width: box.width, height: box.height };
  });
  const laidEdges = edges.map(([from, to]): LaidOutEdge => ({
    from,
    to,
    points: (graph.edge(from, to)?.points ?? []).map((point: { x: number; y: number }) => ({ x: round(point.x), y: round(point.y) })),
  }));
  const size = graph.graph();
  return { width: Math.ceil(size.width ?? 0), height: Math.ceil(size.height ?? 0), nodes: laidOut, edges: laidEdges, messageCount: input.nodes.length };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
