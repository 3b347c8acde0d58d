import { describe, expect, it } from 'vitest';
import { collapseRuns, layoutBranchGraph, segmentLabel, type GraphInput, type GraphInputNode, type GraphLayout } from './layout';

/** A chain of `length` messages, user and assistant in turn, under `parent`. */
function chain(prefix: string, length: number, parent: string | null): GraphInputNode[] {
  const nodes: GraphInputNode[] = [];
  let previous = parent;
  for (let i = 0; i < length; i++) {
    const id = `${prefix}${i}`;
    nodes.push({ id, role: i % 2 === 0 ? 'user' : 'assistant', parentId: previous, firstLine: `message ${id}` });
    previous = id;
  }
  return nodes;
}

interface Box {
  id: string;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

function boxesOf(layout: GraphLayout): Box[] {
  return layout.nodes.map((n) => ({ id: n.id, x0: n.x - n.width / 2, x1: n.x + n.width / 2, y0: n.y - n.height / 2, y1: n.y + n.height / 2 }));
}

/** No two boxes overlap; sorted by top edge so only neighbours in height are compared. */
function expectNoOverlap(layout: GraphLayout): void {
  const sorted = boxesOf(layout).sort((a, b) => a.y0 - b.y0);
  const overlapping: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && sorted[j]!.y0 < sorted[i]!.y1; j++) {
      const a = sorted[i]!;
      const b = sorted[j]!;
      if (!(a.x1 <= b.x0 || b.x1 <= a.x0)) overlapping.push(`${a.id} overlaps ${b.id}`);
    }
  }
  expect(overlapping.slice(0, 5)).toEqual([]);
}

/** Every edge is a few axis-parallel segments that cross no box but its two ends'. */
function expectEdgesClearOfBoxes(layout: GraphLayout): void {
  const boxes = boxesOf(layout);
  const crossed: string[] = [];
  for (const edge of layout.edges) {
    expect(edge.points.length).toBeGreaterThanOrEqual(2);
    expect(edge.points.length).toBeLessThanOrEqual(4);
    for (let i = 1; i < edge.points.length; i++) {
      const a = edge.points[i - 1]!;
      const b = edge.points[i]!;
      expect(a.x === b.x || a.y === b.y).toBe(true);
      const [x0, x1] = [Math.min(a.x, b.x), Math.max(a.x, b.x)];
      const [y0, y1] = [Math.min(a.y, b.y), Math.max(a.y, b.y)];
      for (const box of boxes) {
        if (box.id === edge.from || box.id === edge.to) continue;
        if (x0 < box.x1 && x1 > box.x0 && y0 < box.y1 && y1 > box.y0) crossed.push(`${edge.from}→${edge.to} crosses ${box.id}`);
      }
    }
  }
  expect(crossed.slice(0, 5)).toEqual([]);
}

describe('the branch graph layout', () => {
  it('keeps a short conversation as its messages, head and tip marked', () => {
    const nodes = chain('m', 2, null);
    const layout = layoutBranchGraph({ headId: 'm1', nodes, tips: [{ headId: 'm1', name: 'main', current: true }] });
    expect(layout.nodes.map((n) => [n.id, n.kind, n.isHead, n.tip?.name ?? null])).toEqual([
      ['m0', 'user', false, null],
      ['m1', 'assistant', true, 'main'],
    ]);
    expect(layout.edges.map((e) => [e.from, e.to])).toEqual([['m0', 'm1']]);
    // Left to right: the reply is right of the question, and everything is inside the picture.
    expect(layout.nodes[1]!.x).toBeGreaterThan(layout.nodes[0]!.x);
    for (const node of layout.nodes) {
      expect(node.x + node.width / 2).toBeLessThanOrEqual(layout.width);
      expect(node.y + node.height / 2).toBeLessThanOrEqual(layout.height);
    }
    expect(layout.edges[0]!.points.length).toBeGreaterThanOrEqual(2);
  });

  it('collapses a long linear run into one segment and keeps forks, branch starts and tips', () => {
    const trunk = chain('t', 40, null);
    const left = chain('l', 5, 't39');
    const right = chain('r', 1, 't39');
    const input: GraphInput = { headId: 'l4', nodes: [...trunk, ...left, ...right], tips: [{ headId: 'l4', name: 'main', current: true }, { headId: 'r0', name: 'branch 2', current: false }] };
    const { nodes, edges } = collapseRuns(input);
    expect(nodes.map((n) => [n.id, n.kind, n.count])).toEqual([
      ['t0', 'user', 1],
      ['segment-t1', 'segment', 38],
      ['t39', 'assistant', 1],
      ['l0', 'user', 1],
      ['r0', 'user', 1],
      ['segment-l1', 'segment', 3],
      ['l4', 'user', 1],
    ]);
    expect(nodes.find((n) => n.kind === 'segment')!.label).toBe(segmentLabel(38));
    expect(segmentLabel(38)).toBe('… 38 messages');
    expect(edges).toEqual([
      ['t0', 'segment-t1'],
      ['segment-t1', 't39'],
      ['t39', 'l0'],
      ['t39', 'r0'],
      ['l0', 'segment-l1'],
      ['segment-l1', 'l4'],
    ]);
  });

  it('keeps the head visible even in the middle of a run', () => {
    const nodes = chain('m', 10, null);
    const { nodes: visible } = collapseRuns({ headId: 'm5', nodes, tips: [{ headId: 'm9', name: 'main', current: false }] });
    expect(visible.map((n) => n.id)).toEqual(['m0', 'segment-m1', 'm5', 'segment-m6', 'm9']);
    expect(visible.find((n) => n.id === 'm5')!.isHead).toBe(true);
  });

  it('stays a few hundred boxes at 200 branches of long runs, each tip a box of its own', () => {
    const nodes = chain('t', 50, null);
    const tips = [];
    for (let b = 0; b < 200; b++) {
      const branch = chain(`b${b}-`, 40, 't49');
      nodes.push(...branch);
      tips.push({ headId: `b${b}-39`, name: `branch ${b + 1}`, current: b === 0 });
    }
    const layout = layoutBranchGraph({ headId: 'b0-39', nodes, tips });
    expect(layout.messageCount).toBe(50 + 200 * 40);
    // root, trunk segment, fork; per branch its start, one segment and its tip.
    expect(layout.nodes.length).toBe(3 + 200 * 3);
    expect(layout.nodes.filter((n) => n.tip).length).toBe(200);
    // No two boxes overlap.
    const boxes = layout.nodes.map((n) => ({ x0: n.x - n.width / 2, x1: n.x + n.width / 2, y0: n.y - n.height / 2, y1: n.y + n.height / 2 }));
    const sorted = [...boxes].sort((a, b) => a.y0 - b.y0);
    for (let i = 0; i < sorted.length; i++) {
      for (let j = i + 1; j < sorted.length && sorted[j]!.y0 < sorted[i]!.y1; j++) {
        const a = sorted[i]!;
        const b = sorted[j]!;
        expect(a.x1 <= b.x0 || b.x1 <= a.x0).toBe(true);
      }
    }
  });

  it('lays out 1,000 forks as lanes: one box per message, one row per tip, short edges clear of every box', () => {
    // What ~2,000 appends make: each question gets an answer that stays a tip, and the next
    // question forks off it, so nothing collapses and every message is a box.
    const nodes: GraphInputNode[] = [];
    const tips = [];
    let parent: string | null = null;
    for (let i = 0; i < 1_000; i++) {
      const question = `q${i}`;
      nodes.push({ id: question, role: 'user', parentId: parent, firstLine: `question ${i}` });
      nodes.push({ id: `a${i}`, role: 'assistant', parentId: question, firstLine: `answer ${i}` });
      tips.push({ headId: `a${i}`, name: `branch ${i + 1}`, current: i === 999 });
      parent = question;
    }
    const layout = layoutBranchGraph({ headId: 'a999', nodes, tips });
    expect(layout.nodes).toHaveLength(2_000);
    expect(layout.edges).toHaveLength(1_999);
    const rows = new Set(layout.nodes.map((n) => n.y));
    expect(rows.size).toBe(1_000);
    // The first child (its answer) continues a question's row; the next question starts the next row.
    const at = new Map(layout.nodes.map((n) => [n.id, n]));
    for (let i = 0; i < 1_000; i++) {
      expect(at.get(`a${i}`)!.y).toBe(at.get(`q${i}`)!.y);
      if (i > 0) expect(at.get(`q${i}`)!.y).toBe(at.get(`q${i - 1}`)!.y + 30);
    }
    // The picture is as tall as its rows, and no wider than its longest chain of boxes with gaps.
    expect(layout.height).toBe(12 * 2 + 1_000 * 30);
    expect(layout.width).toBeLessThan(1_001 * (18 + 22) + 200);
    expectNoOverlap(layout);
    expectEdgesClearOfBoxes(layout);
  });

  it('keeps nested forks (1,024 tips of a binary tree) in lanes without overlaps or crossed boxes', () => {
    const nodes: GraphInputNode[] = [{ id: 'n', role: 'user', parentId: null, firstLine: 'root' }];
    let level = ['n'];
    for (let depth = 1; depth <= 10; depth++) {
      const next: string[] = [];
      for (const id of level) {
        for (const side of ['0', '1']) {
          const child = `${id}${side}`;
          nodes.push({ id: child, role: depth % 2 === 0 ? 'user' : 'assistant', parentId: id, firstLine: child });
          next.push(child);
        }
      }
      level = next;
    }
    const tips = level.map((id, i) => ({ headId: id, name: `b${i}`, current: i === 0 }));
    const layout = layoutBranchGraph({ headId: level[0]!, nodes, tips });
    expect(layout.nodes).toHaveLength(2_047);
    expect(new Set(layout.nodes.map((n) => n.y)).size).toBe(1_024);
    // Depth decides the column: every node sits right of its parent.
    const at = new Map(layout.nodes.map((n) => [n.id, n]));
    expect(layout.edges.filter((edge) => at.get(edge.to)!.x - at.get(edge.to)!.width / 2 <= at.get(edge.from)!.x + at.get(edge.from)!.width / 2)).toEqual([]);
    expectNoOverlap(layout);
    expectEdgesClearOfBoxes(layout);
  });

  it('lays out an empty conversation as an empty picture', () => {
    expect(layoutBranchGraph({ headId: null, nodes: [], tips: [] })).toMatchObject({ nodes: [], edges: [], messageCount: 0 });
  });
});
