import { describe, expect, it, vi } from 'vitest';
import type { GraphInput } from './layout';

const input: GraphInput = {
  headId: 'b',
  nodes: [
    { id: 'a', role: 'user', parentId: null, firstLine: 'question' },
    { id: 'b', role: 'assistant', parentId: 'a', firstLine: 'answer' },
  ],
  tips: [{ headId: 'b', name: 'main', current: true }],
};

describe('the branch graph cache', () => {
  it('is one per process: a second copy of the module (as Next loads it) finds the first one\'s layout', async () => {
    const first = await import('./cache');
    const layout = first.cachedBranchGraph('/state', 's1', input);
    vi.resetModules();
    const second = await import('./cache');
    expect(second).not.toBe(first);
    expect(second.branchGraphCache()).toBe(first.branchGraphCache());
    expect(second.cachedBranchGraph('/state', 's1', input)).toBe(layout);
  });

  it('lays out again when the head or a branch name changes', async () => {
    const { cachedBranchGraph } = await import('./cache');
    const layout = cachedBranchGraph('/state', 's2', input);
    expect(cachedBranchGraph('/state', 's2', { ...input, headId: 'a' })).not.toBe(layout);
    expect(cachedBranchGraph('/state', 's2', { ...input, tips: [{ headId: 'b', name: 'renamed', current: true }] })).not.toBe(layout);
    expect(cachedBranchGraph('/state', 's2', input)).toBe(layout);
  });
});
