import { describe, expect, it, vi } from 'vitest';
import type { SessionMeta, StoredNode } from '../types.js';
import { branchList, branchStart } from './branch.js';
import { SessionGraph } from './graph.js';

function node(id: string, seq: number, predecessor: string | null, role = 'user'): StoredNode {
  return { id, created_at: 1_800_000_000 + seq, seq, role, name: '', input: null, output: id, caller: '', predecessor, reads: [], metadata: {} };
}

const meta = (headId: string | null): SessionMeta => ({ head_id: headId }) as SessionMeta;

describe('branchStart', () => {
  it('is the nearest node at or above the tip with siblings, else the root; a cycle ends the walk', () => {
    const graph = new SessionGraph([node('r', 0, null), node('a', 1, 'r', 'llm'), node('b', 2, 'a'), node('c', 3, 'b', 'llm'), node('x', 4, 'a'), node('y', 5, 'x', 'llm')]);
    expect(branchStart(graph, graph.get('c')!).id).toBe('b');
    expect(branchStart(graph, graph.get('y')!).id).toBe('x');
    const linear = new SessionGraph([node('r', 0, null), node('a', 1, 'r', 'llm')]);
    expect(branchStart(linear, linear.get('a')!).id).toBe('r');
    const cycle = new SessionGraph([node('p', 0, 'q'), node('q', 1, 'p', 'llm')]);
    expect(['p', 'q']).toContain(branchStart(cycle, cycle.get('q')!).id);
  });
});

describe('branchList', () => {
  it('names 1,000 branches of a staircase of forks in one pass over the graph, not a walk per branch', () => {
    const nodes: StoredNode[] = [];
    let parent: string | null = null;
    for (let i = 0; i < 1_000; i++) {
      nodes.push(node(`q${i}`, 2 * i, parent));
      nodes.push(node(`a${i}`, 2 * i + 1, `q${i}`, 'llm'));
      parent = `q${i}`;
    }
    const graph = new SessionGraph(nodes);
    const lookups = vi.spyOn(graph.byId, 'get');
    const branches = branchList(graph, meta('a999'));
    expect(branches).toHaveLength(1_000);
    expect(branches[0]).toMatchObject({ headId: 'a0', name: 'main', createdAt: 1_800_000_001_000, current: false });
    expect(branches[999]).toMatchObject({ headId: 'a999', name: 'branch 1000', current: true });
    // Each answer forks off its question: the branch starts at the answer itself.
    expect(branches[500]!.createdAt).toBe(1_800_000_000_000 + 1_001_000);
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(2 * nodes.length);
  });
});
