import { LRUCache } from 'lru-cache';
import { layoutBranchGraph, type GraphInput, type GraphLayout } from './layout';

/**
 * Layouts by what they depend on: the same messages, head and branch names give the same
 * picture, so a reload of the timeline does not run dagre again.
 */
const layouts = new LRUCache<string, GraphLayout>({ max: 64 });

export function cachedBranchGraph(stateDir: string, sessionId: string, input: GraphInput): GraphLayout {
  const last = input.nodes[input.nodes.length - 1]?.id ?? '';
  const tips = input.tips.map((tip) => `${tip.headId}=${tip.name}${tip.current ? '*' : ''}`).join(',');
  const key = `${stateDir}\0${sessionId}\0${input.nodes.length}\0${last}\0${input.headId ?? ''}\0${tips}`;
  const known = layouts.get(key);
  if (known) return known;
  const layout = layoutBranchGraph(input);
  layouts.set(key, layout);
  return layout;
}
