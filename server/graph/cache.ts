import { LRUCache } from 'lru-cache';
import { layoutBranchGraph, type GraphInput, type GraphLayout } from './layout';

/**
 * Layouts by what they depend on: the same messages, head and branch names give the same
 * picture, so a reload of the timeline does not lay it out again. One cache per process, on
 * globalThis: Next loads this module once for the API's route handler and again for the
 * timeline page's server components, and two caches meant paying for each layout twice.
 */
const KEY = Symbol.for('entity-memory.branch-graph-layouts');
const holder = globalThis as typeof globalThis & { [KEY]?: LRUCache<string, GraphLayout> };

export function branchGraphCache(): LRUCache<string, GraphLayout> {
  holder[KEY] ??= new LRUCache<string, GraphLayout>({ max: 64 });
  return holder[KEY];
}

export function branchGraphKey(stateDir: string, sessionId: string, input: GraphInput): string {
  const last = input.nodes[input.nodes.length - 1]?.id ?? '';
  const tips = input.tips.map((tip) => `${tip.headId}=${tip.name}${tip.current ? '*' : ''}`).join(',');
  return `${stateDir}\0${sessionId}\0${input.nodes.length}\0${last}\0${input.headId ?? ''}\0${tips}`;
}

export function cachedBranchGraph(stateDir: string, sessionId: string, input: GraphInput): GraphLayout {
  const layouts = branchGraphCache();
  const key = branchGraphKey(stateDir, sessionId, input);
  const known = layouts.get(key);
  if (known) return known;
  const layout = layoutBranchGraph(input);
  layouts.set(key, layout);
  return layout;
}
