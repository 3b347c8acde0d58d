/**
 * The branch graph of a conversation, laid out on the server so the page ships positions, not a
 * layout engine. Long linear runs collapse into one segment node, which keeps a session of 10,000
 * messages and 200 branches to a few hundred boxes; the layout is linear in those boxes.
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
const COLUMN_GAP = 22;
/** A lane: the taller box (a segment) plus room between lanes. */
const ROW_HEIGHT = SEGMENT.height + 10;

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

/**
 * The positions of every box and edge, left (the root) to right (the tips), as lanes: a node's
 * first child continues its row, every other child starts the next free row below, and each box
 * sits one gap right of its parent. One pass over the boxes, so 1,000 forks cost what 1,000 boxes
 * cost (dagre's crossing minimisation took seconds there, on the request thread). Rows are given
 * in depth-first order, so the rows between a parent and a later child all belong to the parent's
 * earlier children, which start right of the elbow: no edge runs through a box, no boxes overlap.
 */
export function layoutBranchGraph(input: GraphInput): GraphLayout {
  const { nodes, edges } = collapseRuns(input);
  const children = new Map<string, string[]>();
  const hasParent = new Set<string>();
  for (const [from, to] of edges) {
    const list = children.get(from);
    if (list) list.push(to);
    else children.set(from, [to]);
    hasParent.add(to);
  }
  const sizes = new Map(nodes.map((node) => [node.id, sizeOf(node)]));
  const left = new Map<string, number>();
  const row = new Map<string, number>();
  let rows = 0;
  // Depth-first, iterative (a long chain of forks must not recurse): [node, its row, its left edge].
  const stack: Array<[string, number, number]> = [];
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (!hasParent.has(node.id)) stack.push([node.id, -1, MARGIN]);
  }
  let width = 0;
  while (stack.length > 0) {
    const [id, given, x] = stack.pop()!;
    const lane = given >= 0 ? given : rows++;
    row.set(id, lane);
    left.set(id, x);
    const right = x + sizes.get(id)!.width;
    width = Math.max(width, right);
    const kids = children.get(id) ?? [];
    for (let k = kids.length - 1; k >= 0; k--) stack.push([kids[k]!, k === 0 ? lane : -1, right + COLUMN_GAP]);
  }
  const centre = (id: string) => {
    const size = sizes.get(id)!;
    return { x: left.get(id)! + size.width / 2, y: MARGIN + row.get(id)! * ROW_HEIGHT + ROW_HEIGHT / 2 };
  };
  const laidOut = nodes.map((node): LaidOutNode => {
    const size = sizes.get(node.id)!;
    const at = centre(node.id);
    // Built field by field: a spread of 2,000 boxes was most of the layout's time.
    return { id: node.id, kind: node.kind, label: node.label, count: node.count, isHead: node.isHead, tip: node.tip, x: round(at.x), y: round(at.y), width: size.width, height: size.height };
  });
  const laidEdges = edges.map(([from, to]): LaidOutEdge => {
    // From the box's right edge: a head with children carries its name there, and no line crosses it.
    const start = { x: left.get(from)! + sizes.get(from)!.width, y: centre(from).y };
    const end = { x: left.get(to)!, y: centre(to).y };
    if (start.y === end.y) return { from, to, points: [start, end] };
    // An elbow: along the parent's row, down in the gap before the child's column, into the child.
    const elbow = round(end.x - COLUMN_GAP / 2);
    return { from, to, points: [start, { x: elbow, y: start.y }, { x: elbow, y: end.y }, end] };
  });
  return { width: Math.ceil(width + MARGIN), height: MARGIN * 2 + rows * ROW_HEIGHT, nodes: laidOut, edges: laidEdges, messageCount: input.nodes.length };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
