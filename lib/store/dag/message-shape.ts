import { secondsToMs } from '../time.js';
import type { AppendedMessage, Message, MessageRole, StoredNode } from '../types.js';
import { callerOf } from './graph.js';
import { contentOf } from './node-content.js';
import { EVENT_INLINE_CHARS, stubOf } from './node-stub.js';

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

export { contentOf };

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

/** The message as message_appended carries it: whole when small, else the stub marked `truncated`. */
export function appendedMessageOf(node: StoredNode, fileChars: number): AppendedMessage {
  if (fileChars <= EVENT_INLINE_CHARS) return toMessage(node);
  return { ...toMessage(stubOf(node)), truncated: true };
}
