import type { StoredNode } from '../types.js';

/** The text of a node: a string as it is, anything else as JSON text. */
export function contentOf(node: Pick<StoredNode, 'output'>): string {
  if (typeof node.output === 'string') return node.output;
  if (node.output === null || node.output === undefined) return '';
  return JSON.stringify(node.output);
}
