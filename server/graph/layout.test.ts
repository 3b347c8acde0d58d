import { describe, expect, it } from 'vitest';
import { collapseRuns, layoutBranchGraph, segmentLabel, type GraphInput, type GraphInputNode } from './layout';

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

  it('lays out an empty conversation as an empty picture', () => {
    expect(layoutBranchGraph({ headId: null, nodes: [], tips: [] })).toMatchObject({ nodes: [], edges: [], messageCount: 0 });
  });
});
