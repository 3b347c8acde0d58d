import { secondsToMs } from '../time.js';
import type { Message, MessageRole, StoredNode } from '../types.js';
import { callerOf } from './graph.js';

/** Node role ↔ API role: llm is assistant (or system by metadata.role), code is tool. */
export function messageRoleOf(node: StoredNode): MessageRole {
  if (node.role === 'user') return 'user';
  if (node.role === 'code') return 'tool';
  if (node.metadata['role'] === 'system') return 'system';
  return 'assistant';
}

export function nodeRoleOf(role: MessageRole): 'user' | 'llm' | 'code' {
  if (role === 'user') return 'user';
  if (role === 'tool') return 'code';
  return 'llm';
}

/** The text of a node: a string as it is, anything else as JSON text. */
export function contentOf(node: StoredNode): string {
  if (typeof node.output === 'string') return node.output;
  if (node.output === null || node.output === undefined) return '';
  return JSON.stringify(node.output);
}

export function toMessage(node: StoredNode): Message {
  return {
    id: node.id,
    seq: node.seq,
    role: messageRoleOf(node),
    content: contentOf(node),
    parentId: node.predecessor && node.predecessor !== 'ROOT' ? node.predecessor : null,
    calledBy: callerOf(node),
    name: node.name,
    input: node.input ?? null,
    metadata: node.metadata,
    createdAt: secondsToMs(node.created_at),
  };
}
