import { describe, expect, it } from 'vitest';
import type { StoredNode } from '../types.js';
import { SESSION_INLINE_CHARS, SessionGraph } from './graph.js';
import { INLINE_NODE_CHARS, STUB_CONTENT_CHARS } from './node-stub.js';

function node(id: string, seq: number, output: string, predecessor: string | null = null): StoredNode {
  return { id, created_at: 1, seq, role: seq % 2 === 0 ? 'user' : 'llm', name: '', input: null, output, caller: '', predecessor, reads: [], metadata: {} };
}

describe('SessionGraph with node files', () => {
  const big = 'b'.repeat(INLINE_NODE_CHARS * 2);
  const nodes = [node('n0', 0, 'small'), node('n1', 1, big, 'n0')];
  const onDisk = new Map(nodes.map((n) => [n.id, n]));
  const files = { read: (id: string) => onDisk.get(id) ?? null, sizes: new Map(nodes.map((n) => [n.id, JSON.stringify(n).length])) };

  it('keeps a node whose file is large as a stub, links intact, and reads it whole from its file', () => {
    const graph = new SessionGraph(nodes, files);
    expect(graph.isOnDisk('n0')).toBe(false);
    expect(graph.get('n0')!.output).toBe('small');
    expect(graph.isOnDisk('n1')).toBe(true);
    expect(graph.get('n1')!.output).toBe('b'.repeat(STUB_CONTENT_CHARS));
    expect(graph.childrenOf('n0')).toEqual(['n1']);
    expect(graph.branchTo('n1').map((n) => n.id)).toEqual(['n0', 'n1']);
    expect(graph.full(graph.get('n1')!).output).toBe(big);
    expect(graph.full(graph.get('n0')!)).toBe(graph.get('n0'));
  });

  it('stubs an appended node by the size of the file it was written to', () => {
    const graph = new SessionGraph([], files);
    graph.add(nodes[0]!, 100);
    graph.add(nodes[1]!, INLINE_NODE_CHARS + 1);
    expect(graph.isOnDisk('n1')).toBe(true);
    expect(graph.lastSeq).toBe(1);
  });

  it('falls back to the stub when the file is gone or holds another node', () => {
    const graph = new SessionGraph(nodes, { read: (id) => (id === 'n1' ? node('other', 1, 'x') : null), sizes: files.sizes });
    expect(graph.full(graph.get('n1')!).output).toBe('b'.repeat(STUB_CONTENT_CHARS));
  });

  it('keeps every node whole without files (a graph read from a git tree)', () => {
    const graph = new SessionGraph(nodes);
    expect(graph.isOnDisk('n1')).toBe(false);
    expect(graph.get('n1')!.output).toBe(big);
  });
});

describe('SessionGraph memory budget', () => {
  it('keeps mid-sized nodes whole until the session holds SESSION_INLINE_CHARS, then stubs them', () => {
    const text = 'm'.repeat(INLINE_NODE_CHARS - 500);
    const files = { read: () => null };
    const graph = new SessionGraph([], files);
    let seq = 0;
    while (graph.retainedChars <= SESSION_INLINE_CHARS) {
      graph.add(node(`w${seq}`, seq, text), INLINE_NODE_CHARS - 300);
      seq++;
    }
    expect(graph.isOnDisk('w0')).toBe(false);
    expect(graph.isOnDisk(`w${seq - 1}`)).toBe(false);
    const before = graph.retainedChars;
    for (let i = 0; i < 1_000; i++, seq++) graph.add(node(`s${seq}`, seq, text), INLINE_NODE_CHARS - 300);
    expect(graph.isOnDisk(`s${seq - 1}`)).toBe(true);
    // 1,000 more nodes of 8 KB cost what 1,000 stubs cost; tiny ones stay whole.
    expect(graph.retainedChars - before).toBeLessThan(1_000 * 3_000);
    graph.add(node('tiny', seq, 'ok'), 200);
    expect(graph.isOnDisk('tiny')).toBe(false);
  });
});
