import type { StoredNode } from '../types.js';

/**
 * The model a replayed answer came from (`metadata.replay = {of, model}`, DESIGN §14 Replay): the
 * branch it starts is named after it, so two models' answers to one history read apart.
 */
export function replayModelOf(node: StoredNode): string | null {
  const replay = node.metadata?.['replay'];
  if (typeof replay !== 'object' || replay === null) return null;
  const model = (replay as Record<string, unknown>)['model'];
  return typeof model === 'string' && model !== '' ? model : null;
}
