import type { StoredNode } from '../types.js';
import { contentOf } from './node-content.js';

/**
 * What the in-memory DAG keeps of a large node. A session stays open in memory for as long as the
 * cache holds it, so a node whose file is longer than INLINE_NODE_CHARS is kept as a stub: its
 * ids and links, its first STUB_CONTENT_CHARS characters (enough for a first line, a preview and
 * a commit message) and its small metadata. Reads of the whole message go to its file.
 */
export const INLINE_NODE_CHARS = 8 * 1024;
export const STUB_CONTENT_CHARS = 1_000;
/** Metadata a stub keeps: short scalar fields (role, display, model, …), this many characters at most. */
const STUB_METADATA_CHARS = 1_024;
const STUB_METADATA_VALUE_CHARS = 200;
const STRUCTURAL_KEYS = new Set(['role', 'display']);
/** The most a stub holds: its content, its metadata and its other fields. */
export const STUB_MAX_CHARS = STUB_CONTENT_CHARS + STUB_METADATA_CHARS + 256;

/**
 * The first `max` UTF-16 units, never ending in half a surrogate pair, as a string of its own:
 * V8's slice of a long string is a view that keeps the whole string alive, which would make
 * every stub hold its full content after all. A UTF-16 round trip copies it, lone surrogates
 * and all.
 */
export function previewPrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  const view = text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
  return Buffer.from(view, 'utf16le').toString('utf16le');
}

function stubMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  let budget = STUB_METADATA_CHARS;
  // What reads of the DAG look at (the system role, record nodes' display) goes first.
  const entries = Object.entries(metadata).sort(([a], [b]) => Number(STRUCTURAL_KEYS.has(b)) - Number(STRUCTURAL_KEYS.has(a)));
  for (const [key, value] of entries) {
    const scalar = typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= STUB_METADATA_VALUE_CHARS);
    if (!scalar) continue;
    const cost = key.length + (typeof value === 'string' ? value.length : 8);
    if (cost > budget) continue;
    budget -= cost;
    kept[key] = value;
  }
  return kept;
}

/** The node as the DAG keeps it when its file is large: content cut, input dropped, metadata small. */
export function stubOf(node: StoredNode): StoredNode {
  // Only the known fields: a foreign file may carry anything else, of any size.
  return {
    id: node.id,
    created_at: node.created_at,
    seq: node.seq,
    role: node.role,
    name: previewPrefix(node.name, STUB_METADATA_VALUE_CHARS),
    input: null,
    output: previewPrefix(contentOf(node), STUB_CONTENT_CHARS),
    caller: node.caller,
    predecessor: node.predecessor,
    reads: node.reads.length > 16 ? node.reads.slice(0, 16) : node.reads,
    metadata: stubMetadata(node.metadata),
  };
}

/**
 * A node file longer than this goes out in message_appended as its stub. The event hub buffers
 * 1,000 events per user for reconnecting tabs; whole messages there would be up to a gigabyte.
 */
export const EVENT_INLINE_CHARS = 4 * 1024;
